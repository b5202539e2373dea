"""`jupiter export`: a trained model out of Jupiter, into the tools people already run models
with: a merged Hugging Face dir (hf.py), a GGUF file for llama.cpp and LM Studio (gguf.py,
its tokenizer metadata in vocab.py), an Ollama Modelfile beside the GGUF (ollama.py), an
mlx-lm folder (mlx.py). source.py picks what to export, common.py holds what they share
(quantization names, the staging dir, export.json), writer.py runs one export."""
