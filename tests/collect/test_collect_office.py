"""Word-processor documents and e-books read as Markdown: a .docx (headings, code, lists, a
table, code runs), an .odt (an automatic style standing for preformatted text), an .epub
(its spine's chapters, a cover skipped), and the files that cannot be read, counted."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from jupiter.collect.local import collect_local
from jupiter.collect.result import CollectResult
from jupiter.config import DomainConfig

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def archive(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()


def para(text: str, style: str = "", extra: str = "") -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/>{extra}</w:pPr>' if style or extra else ""
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


DOCX = archive(
    {
        "word/document.xml": f"""<?xml version="1.0"?><w:document {W}><w:body>
{para("Configuring the queue", "Heading1")}
<w:p><w:r><w:t xml:space="preserve">Set </w:t></w:r><w:r><w:rPr><w:rStyle w:val="VerbatimChar"/></w:rPr><w:t>workers</w:t></w:r><w:r><w:t xml:space="preserve"> to run more jobs at once.</w:t></w:r></w:p>
{para("spool init /var/spool", "SourceCode")}
{para("spool run --workers 4", "SourceCode")}
{para("The folder must be writable.", "", '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>')}
<w:tbl><w:tr><w:tc>{para("Key")}</w:tc><w:tc>{para("Meaning")}</w:tc></w:tr>
<w:tr><w:tc>{para("workers")}</w:tc><w:tc>{para("How many jobs run at once.")}</w:tc></w:tr></w:tbl>
</w:body></w:document>""",
        "word/styles.xml": f"""<?xml version="1.0"?><w:styles {W}>
<w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:styleId="SourceCode"><w:name w:val="Source Code"/></w:style>
<w:style w:styleId="VerbatimChar"><w:name w:val="Verbatim Char"/></w:style>
</w:styles>""",
        "docProps/core.xml": '<?xml version="1.0"?><cp:coreProperties xmlns:cp="x" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Spool Guide</dc:title>'
        "</cp:coreProperties>",
    }
)
T = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
ODT = archive(
    {
        "content.xml": f"""<?xml version="1.0"?><office:document-content
 xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="{T}"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0">
<office:automatic-styles><style:style style:name="P1" style:family="paragraph"
 style:parent-style-name="Preformatted_20_Text"/></office:automatic-styles>
<office:body><office:text>
<text:h text:outline-level="2">Retries</text:h>
<text:p text:style-name="Text_20_body">A failed job runs again<text:s/>later with <text:span
 text:style-name="Source_Text">--all</text:span>.</text:p>
<text:p text:style-name="P1">spool retry --all</text:p>
<text:list><text:list-item><text:p>Each retry waits longer.</text:p></text:list-item></text:list>
</office:text></office:body></office:document-content>""",
    }
)


def chapter(title: str, body: str) -> str:
    return (
        f'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}'
        f"</title></head><body>{body}</body></html>"
    )


WORDS = " ".join(["The queue keeps every job in its own file until a worker takes it."] * 3)
EPUB_FILES = {
    "mimetype": "application/epub+zip",
    "META-INF/container.xml": '<?xml version="1.0"?><container><rootfiles><rootfile '
    'full-path="OEBPS/content.opf"/></rootfiles></container>',
    "OEBPS/content.opf": """<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf"
 xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>The Spool Book</dc:title>
</metadata><manifest>
<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
<item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
<item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
<item id="css" href="style.css" media-type="text/css"/>
</manifest><spine><itemref idref="cover" linear="no"/><itemref idref="c2"/>
<itemref idref="c1"/></spine></package>""",
    "OEBPS/cover.xhtml": chapter("Cover", "<p>The Spool Book</p>"),
    "OEBPS/text/ch1.xhtml": chapter("Workers", f"<h1>Workers</h1><p>{WORDS}</p>"),
    "OEBPS/text/ch2.xhtml": chapter("ch2.xhtml", f"<h1>Queues</h1><p>{WORDS}</p>"),
    "OEBPS/style.css": "p { margin: 0 }",
}


def collect_folder(tmp_path: Path, files: dict[str, bytes]) -> tuple[dict, CollectResult]:
    root = tmp_path / "docs"
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "docs"}]})
    cfg.base_dir = tmp_path
    rejects = CollectResult()
    docs = collect_local(cfg.sources[0], cfg, rejects)  # type: ignore[arg-type]
    return {d.uri.replace(str(root.resolve()) + "/", ""): d for d in docs}, rejects


def test_word_opendocument_and_an_ebook_read_by_default(tmp_path: Path) -> None:
    encrypted = {
        **EPUB_FILES,
        "META-INF/encryption.xml": "<encryption><EncryptedData><CipherData><CipherReference "
        'URI="OEBPS/text/ch1.xhtml"/></CipherData></EncryptedData></encryption>',
    }
    docs, rejects = collect_folder(
        tmp_path,
        {
            "guide.docx": DOCX,
            "retries.odt": ODT,
            "book.epub": archive(EPUB_FILES),
            "locked.epub": archive(encrypted),
            "broken.docx": b"not a zip archive",
        },
    )
    assert sorted(docs) == [
        "book.epub#OEBPS/text/ch1.xhtml",
        "book.epub#OEBPS/text/ch2.xhtml",
        "guide.docx",
        "retries.odt",
    ]
    assert rejects.rejects == {"bad_office_file": 1, "encrypted_ebook": 1}
    guide = docs["guide.docx"]
    assert guide.title == "Spool Guide"
    assert guide.text == (
        "# Configuring the queue\n\nSet `workers` to run more jobs at once.\n\n"
        "```\nspool init /var/spool\nspool run --workers 4\n```\n\n"
        "- The folder must be writable.\nKey | Meaning\nworkers | How many jobs run at once.\n"
    )
    assert docs["retries.odt"].text == (
        "## Retries\n\nA failed job runs again later with `--all`.\n\n```\nspool retry --all\n```\n\n"
        "- Each retry waits longer.\n"
    )
    # the spine's order; a chapter titled by its file name is named by its heading
    book = [docs["book.epub#OEBPS/text/ch2.xhtml"], docs["book.epub#OEBPS/text/ch1.xhtml"]]
    assert [d.title for d in book] == [
        "Queues — The Spool Book",
        "Workers — The Spool Book",
    ]
    assert book[0].text.startswith("# Queues\n\nThe queue keeps every job")
    assert book[0].meta["part"] == "OEBPS/text/ch2.xhtml"
