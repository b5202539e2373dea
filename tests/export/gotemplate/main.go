// Renders an Ollama TEMPLATE with Go's text/template, as Ollama does: the export tests
// check that the Go template Jupiter writes renders chats as the model's Jinja one.
// Input on stdin: {"template": "...", "messages": [{"role": ..., "content": ...}]}.
package main

import (
	"encoding/json"
	"os"
	"text/template"
)

type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func main() {
	var in struct {
		Template string    `json:"template"`
		Messages []Message `json:"messages"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	t := template.Must(template.New("m").Parse(in.Template))
	if err := t.Execute(os.Stdout, map[string]any{"Messages": in.Messages}); err != nil {
		panic(err)
	}
}
