"""An XML Schema read as the reference of the XML format it describes: the schema a
document, each documented element and attribute one, named by its path
(`xsd:app:app/session/timeout`, `xsd:app:app/@version`), its text the path and type over
its documentation, default, allowed values, constraints and a section's lists."""

from __future__ import annotations

import time
from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect import CollectResult
from jupiter.collect.result import SourceFile
from jupiter.collect.xsdapi import (
    FIXES,
    URI_PREFIX,
    XSD_BAD,
    XSD_CUT,
    XSD_NO_API,
    api_documents,
    is_xsd,
)
from jupiter.records import Document

HEAD = '<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def schema(body: str, attrs: str = "") -> str:
    return f'{HEAD} xmlns:a="urn:app" targetNamespace="urn:app"{attrs}>\n{body}\n</xs:schema>\n'


def doc(text: str) -> str:
    return f"<xs:annotation><xs:documentation>{text}</xs:documentation></xs:annotation>"


APP = schema(
    f"""
  <xs:annotation><xs:documentation>
    Copyright 2020 Example Corp. All rights reserved.
  </xs:documentation></xs:annotation>
  <xs:annotation><xs:documentation>
    This is the schema of app.xml.

    It is read at startup.
  </xs:documentation></xs:annotation>
  <xs:element name="app" type="a:appType">
    {doc("The root of app.xml.")}
  </xs:element>
  <xs:complexType name="appType">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element name="session" type="a:sessionType"/>
      <xs:group ref="a:common"/>
    </xs:choice>
    <xs:attributeGroup ref="a:appAttrs"/>
  </xs:complexType>
  <xs:group name="common">
    <xs:sequence>
      <xs:element name="name" type="xs:string">{doc("The app's name.")}</xs:element>
      <xs:element name="mode" type="a:modeType" minOccurs="0"/>
    </xs:sequence>
  </xs:group>
  <xs:attributeGroup name="appAttrs">
    <xs:attribute name="version" type="a:versionType" use="required"/>
    <xs:attribute name="id" type="xs:ID"/>
    <xs:attribute name="debug" type="xs:boolean" default="false">
      {doc("Whether to log more.")}
    </xs:attribute>
  </xs:attributeGroup>
  <xs:complexType name="sessionType">
    {doc("The session settings.")}
    <xs:sequence>
      <xs:element name="timeout" minOccurs="0">
        {doc("Minutes before an idle session ends.")}
        <xs:simpleType>
          <xs:restriction base="xs:integer">
            <xs:minInclusive value="0"/><xs:maxInclusive value="1440"/>
          </xs:restriction>
        </xs:simpleType>
      </xs:element>
      <xs:element name="cookie" type="xs:string" default="SID"/>
    </xs:sequence>
  </xs:complexType>
  <xs:simpleType name="modeType">
    {doc("How the app runs.")}
    <xs:restriction base="xs:token">
      <xs:enumeration value="fast">{doc("Skip checks.")}</xs:enumeration>
      <xs:enumeration value="safe"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="versionType">
    <xs:restriction base="xs:token"><xs:pattern value="[0-9]+\\.[0-9]+"/></xs:restriction>
  </xs:simpleType>"""
)


def read(files: dict[str, str], rejects: CollectResult | None = None) -> dict[str, Document]:
    got = [SourceFile(P(name), name, text) for name, text in files.items()]
    return {d.uri: d for d in api_documents(got, "local", rejects)}


def test_elements_and_attributes_are_documents_named_by_their_path() -> None:
    rejects = CollectResult()
    docs = read({"app.xsd": APP}, rejects)
    assert sorted(docs) == [
        "xsd:app",
        "xsd:app:app",
        "xsd:app:app/@debug",
        "xsd:app:app/mode",
        "xsd:app:app/name",
        "xsd:app:app/session",
        "xsd:app:app/session/timeout",
    ]
    assert not rejects.rejects
    root = docs["xsd:app"]
    assert root.meta["kind"] == "schema" and root.meta["language"] == "xsd"
    # the copyright paragraph is dropped, the others kept
    assert root.text == (
        "app\n\nTarget namespace: `urn:app`\n\nThis is the schema of app.xml.\n\n"
        "It is read at startup.\n\nElements:\n- `<app>`: The root of app.xml."
    )
    app = docs["xsd:app:app"]
    assert app.meta["kind"] == "section" and app.meta["signature"] == "app: appType (element)"
    assert app.meta["qualname"] == "app:app" and app.meta["line"] == 12
    # a choice 0..unbounded makes each of its members 0..*; an undocumented xs:ID is left out
    assert app.text == (
        "app: appType (element)\n\nThe root of app.xml.\n\nElements:\n"
        "- `<session>` (sessionType (element), 0..*): The session settings.\n"
        "- `<name>` (string, 0..*): The app's name.\n"
        '- `<mode>` (modeType (enum "fast" | "safe"), 0..*): How the app runs.\n\n'
        "Attributes:\n- `@version` (versionType (token), required)\n"
        "- `@debug` (boolean, optional, default false): Whether to log more."
    )
    # the type's documentation stands for an element with none of its own
    assert docs["xsd:app:app/session"].text == (
        "app/session: sessionType (element), 0..*\n\nThe session settings.\n\nElements:\n"
        "- `<timeout>` (integer, 0..1): Minutes before an idle session ends.\n"
        "- `<cookie>` (string)"
    )
    timeout = docs["xsd:app:app/session/timeout"]
    assert timeout.meta["kind"] == "element" and timeout.meta["line"] == 38
    assert timeout.text == (
        "app/session/timeout: integer, 0..1\n\nMinutes before an idle session ends.\n\n"
        "Constraints: minimum 0, maximum 1440."
    )
    assert docs["xsd:app:app/mode"].text == (
        'app/mode: modeType (enum "fast" | "safe"), 0..*\n\nHow the app runs.\n\n'
        "Allowed values:\n- `fast`: Skip checks.\n- `safe`"
    )
    debug = docs["xsd:app:app/@debug"]
    assert debug.meta["kind"] == "attribute"
    assert debug.text == (
        "app/@debug: boolean (optional, default false)\n\nWhether to log more.\n\nDefault: false"
    )


def test_extension_refs_to_global_elements_and_a_type_reached_twice() -> None:
    text = schema(
        f"""
  <xs:element name="beans">
    {doc("A set of beans.")}
    <xs:complexType>
      <xs:sequence>
        <xs:element ref="a:bean" maxOccurs="unbounded"/>
        <xs:element name="default" type="a:beanType" minOccurs="0">
          {doc("The defaults.")}
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
  <xs:element name="bean" type="a:beanType"/>
  <xs:complexType name="baseType">
    <xs:sequence>
      <xs:element name="class" type="xs:string">{doc("The class.")}</xs:element>
    </xs:sequence>
    <xs:attribute name="scope" fixed="singleton">{doc("The scope.")}</xs:attribute>
  </xs:complexType>
  <xs:complexType name="beanType">
    {doc("A bean.")}
    <xs:complexContent>
      <xs:extension base="a:baseType">
        <xs:sequence>
          <xs:element name="bean" type="a:beanType" minOccurs="0" maxOccurs="unbounded"/>
        </xs:sequence>
      </xs:extension>
    </xs:complexContent>
  </xs:complexType>"""
    )
    docs = read({"beans.xsd": text})
    assert sorted(docs) == [
        "xsd:beans",
        "xsd:beans:bean",
        "xsd:beans:bean/@scope",
        "xsd:beans:bean/bean",
        "xsd:beans:bean/class",
        "xsd:beans:beans",
        "xsd:beans:beans/default",
    ]
    # a ref is documented at the global element's own path; the parent's list points there
    assert docs["xsd:beans:beans"].text == (
        "beans: element\n\nA set of beans.\n\nElements:\n- `<bean>` (1..*): see `<bean>`.\n"
        "- `<default>` (beanType (element), 0..1): The defaults."
    )
    # the base's content first, then the extension's; breadth first, the global `bean`
    # (depth 1) is where beanType is expanded: the others say so, and `bean/bean` stops
    # the recursion
    assert docs["xsd:beans:bean"].meta["kind"] == "section"
    assert docs["xsd:beans:bean"].text == (
        "bean: beanType (element)\n\nA bean.\n\nElements:\n- `<class>` (string): The class.\n"
        "- `<bean>` (beanType (element), 0..*): A bean.\n\n"
        "Attributes:\n- `@scope` (anySimpleType, optional): The scope."
    )
    assert docs["xsd:beans:beans/default"].meta["kind"] == "element"
    assert docs["xsd:beans:beans/default"].text == (
        "beans/default: beanType (element), 0..1\n\nThe defaults.\n\nSame as `bean`."
    )
    assert docs["xsd:beans:bean/bean"].text == (
        "bean/bean: beanType (element), 0..*\n\nA bean.\n\nSame as `bean`."
    )
    assert docs["xsd:beans:bean/@scope"].text == (
        "bean/@scope: anySimpleType (optional)\n\nThe scope.\n\nDefault: singleton (fixed)"
    )


def test_an_include_across_files_and_generic_types() -> None:
    common = schema(
        f"""
  <xs:complexType name="flagType">
    {doc("A boolean: true or false.")}
    <xs:simpleContent>
      <xs:extension base="xs:boolean"><xs:attribute name="id" type="xs:ID"/></xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:attribute name="lang" type="xs:language">{doc("The language.")}</xs:attribute>"""
    )
    main = schema(
        f"""
  <xs:include schemaLocation="https://example.com/schemas/common.xsd"/>
  <xs:include schemaLocation="missing.xsd"/>
  <xs:element name="web">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="a" type="a:flagType"/>
        <xs:element name="b" type="a:flagType">{doc("Whether b.")}</xs:element>
        <xs:element name="c" type="a:flagType"/>
        <xs:element name="d" type="a:unknownType"/>
      </xs:sequence>
      <xs:attribute ref="a:lang"/>
    </xs:complexType>
  </xs:element>"""
    )
    rejects = CollectResult()
    docs = read({"common.xsd": common, "web.xsd": main}, rejects)
    assert sorted(docs) == [
        "xsd:web",
        "xsd:web:web/@lang",
        "xsd:web:web/a",
        "xsd:web:web/b",
        "xsd:web:web/c",
    ]
    # a library of types with no documentation of its own gives nothing itself: its
    # definitions are documented where a schema with global elements uses them
    assert rejects.rejects == {XSD_NO_API: 1} and rejects.samples[XSD_NO_API] == ["common.xsd"]
    # three names use flagType: its documentation is a datatype's, introduced as such,
    # and gives no first sentence to the list
    assert docs["xsd:web:web/a"].text == (
        "web/a: flagType (boolean)\n\nThe type `flagType`: A boolean: true or false."
    )
    assert docs["xsd:web:web/b"].text == "web/b: flagType (boolean)\n\nWhether b."
    assert docs["xsd:web"].text == "web\n\nTarget namespace: `urn:app`\n\nElements:\n- `<web>`"
    # a ref to an included global attribute is documented under this path
    assert docs["xsd:web:web/@lang"].text == "web/@lang: language (optional)\n\nThe language."
    assert docs["xsd:web:web/@lang"].meta["line"] == 1  # declared in another file


def test_xhtml_and_plain_text_documentation() -> None:
    text = schema(
        """
  <xs:element name="svg" type="xs:string">
    <xs:annotation>
      <xs:documentation xmlns="http://www.w3.org/1999/xhtml">
        <p>The <code>svg</code> element is a <b>container</b>, see
        <a href="https://www.w3.org/TR/SVG/">the spec</a>.</p>
        <ul><li>first item</li><li>second <em>item</em></li></ul>
        <pre>
  &lt;svg width="10"&gt;
    &lt;rect/&gt;
  &lt;/svg&gt;</pre>
        <foo>Other markup gives its text.</foo>
      </xs:documentation>
      <xs:documentation><![CDATA[[
        A second node is a paragraph.

        Example:

            java -jar app.jar
            --verbose

        - one item
          that goes on
        - two
      ]]]></xs:documentation>
    </xs:annotation>
  </xs:element>"""
    )
    docs = read({"svg.xsd": text})
    assert docs["xsd:svg:svg"].text == (
        "svg: string\n\n"
        "The `svg` element is a **container**, see [the spec](https://www.w3.org/TR/SVG/).\n\n"
        "- first item\n- second *item*\n\n"
        '```xml\n<svg width="10">\n  <rect/>\n</svg>\n```\n\n'
        "Other markup gives its text.\n\n"
        "A second node is a paragraph.\n\nExample:\n\n"
        "```\njava -jar app.jar\n--verbose\n```\n\n"
        "- one item that goes on\n- two"
    )


def test_bad_undocumented_and_entity_files_are_counted() -> None:
    entities = (
        '<?xml version="1.0"?>\n<!DOCTYPE xs:schema [\n<!ENTITY a "aaaaaaaaaa">\n'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n'
        '<xs:element name="x" type="xs:string">'
        "<xs:annotation><xs:documentation>&b;</xs:documentation></xs:annotation>"
        "</xs:element>\n</xs:schema>\n"
    )
    files = {
        "broken.xsd": "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>",
        "notschema.xsd": "<html><body>x</body></html>",
        "bomb.xsd": entities,
        "bare.xsd": schema('<xs:element name="x" type="xs:string"/>'),
    }
    rejects = CollectResult()
    assert read(files, rejects) == {}
    assert rejects.rejects == {XSD_BAD: 3, XSD_NO_API: 1}
    assert rejects.samples[XSD_BAD] == ["bomb.xsd", "broken.xsd", "notschema.xsd"]
    assert rejects.samples[XSD_NO_API] == ["bare.xsd"]
    assert set(FIXES) == {XSD_BAD, XSD_NO_API, XSD_CUT}
    assert all("xsd: text" in fix for fix in FIXES.values())
    assert is_xsd("web-app_4_0.xsd") and is_xsd("A.XSD") and not is_xsd("web.xml")
    assert URI_PREFIX == "xsd:"


def test_many_elements_are_cut_and_counted() -> None:
    many = "".join(
        f'<xs:element name="e{i}" type="xs:string">{doc(f"Element {i}.")}</xs:element>'
        for i in range(5100)
    )
    text = schema(f'<xs:element name="big">{doc("Big.")}<xs:complexType><xs:sequence>{many}'
                  "</xs:sequence></xs:complexType></xs:element>")  # fmt: skip
    rejects = CollectResult()
    start = time.process_time()  # this process's CPU: other tests' load aside
    docs = read({"big.xsd": text}, rejects)
    assert time.process_time() - start < 1.5
    assert len(docs) == 5000 and rejects.rejects == {XSD_CUT: 1}
    assert "xsd:big:big/e4997" in docs and "xsd:big:big/e4998" not in docs
    assert docs["xsd:big:big"].text.endswith("- `<e99>` (string): Element 99.\n… and 5000 more.")


def test_a_schema_is_read_by_default_and_asked_about_its_elements(tmp_path: Path) -> None:
    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig

    xsd = (
        '<?xml version="1.0"?>\n<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">\n'
        '  <xs:element name="depot">\n    <xs:annotation><xs:documentation>\n'
        "      The root of a depot file.\n    </xs:documentation></xs:annotation>\n"
        "    <xs:complexType><xs:sequence>\n"
        '      <xs:element name="keep-days" type="xs:integer" minOccurs="0">\n'
        "        <xs:annotation><xs:documentation>How many days a crate is kept after its "
        "last use.</xs:documentation></xs:annotation>\n      </xs:element>\n"
        "    </xs:sequence></xs:complexType>\n  </xs:element>\n</xs:schema>\n"
    )
    write_tree(tmp_path / "p", {"depot.xsd": xsd})
    cfg = DomainConfig.model_validate({"name": "t", "sources": [{"type": "local", "path": "p"}]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    keep = docs["xsd:depot:depot/keep-days"]
    assert keep.text.splitlines()[0] == "depot/keep-days: integer, 0..1"
    # its type alone (`integer`, how often it comes) is not asked
    assert ask(keep) == {"what_does": "How many days a crate is kept after its last use."}
