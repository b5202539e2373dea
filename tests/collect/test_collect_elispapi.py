"""Emacs Lisp read as Emacs's own help shows it (`C-h f`, `C-h v`, `C-h P`): source files
read, never evaluated, each documented function, command, macro, variable, option, face,
mode, alias, group, struct and class a document named by its symbol
(`elisp:magit-status`), and the package itself by its header and commentary."""

from __future__ import annotations

from pathlib import Path
from pathlib import PurePosixPath as P

from apitree import fuzzed
from jupiter.collect import CollectResult
from jupiter.collect.elispapi import (
    ELISP_GENERATED,
    ELISP_NO_API,
    ELISP_TEST,
    FIXES,
    SUFFIXES,
    URI_PREFIX,
    ElispFile,
    api_documents,
    is_elisp,
    is_generated,
    is_test,
    markdown,
    read_forms,
    shown,
    string_value,
    substitute,
)
from jupiter.records import Document

SHAPES = """\
;;; shapes.el --- Shapes and their areas  -*- lexical-binding: t -*-

;; Copyright (C) 2024 Someone

;; Author: Someone <me@example.org>
;; Version: 1.2
;; Package-Requires: ((emacs "27.1"))
;; Keywords: tools, lisp

;;; Commentary:

;; Shapes on a plane.  Use `shapes-area' for circles.
;;
;;; Usage:
;;
;;   (require 'shapes)
;;   (shapes-area 2)

;;; Code:

(defgroup shapes nil
  "Shapes on a plane."
  :group 'tools)

(defcustom shapes-precision 2
  "Digits shown after the point."
  :type '(choice (const :tag "None" nil)
                 integer)
  :safe #'integerp
  :package-version '(Shapes . "1.1"))

;;;###autoload
(defun shapes-area (radius &optional unit)
  "Return the area of a circle of RADIUS.
UNIT, when non-nil, names the unit.

For example:

  (shapes-area 2)
  ;; => 12.56

See `shapes-precision' and \\\\=`quoted'."
  (* float-pi radius radius))

(defun shapes-draw (shape)
  "Draw SHAPE in the current buffer.
Bound to \\\\[shapes-draw] in \\\\<shapes-mode-map>`shapes-mode'."
  (declare (obsolete shapes-render "1.1"))
  (interactive "P")
  shape)

(defun shapes--internal (x) "Hidden: internal." x)

(defun shapes-constant () "A string that is the whole body: no doc.")

(defmacro shapes-with (spec &rest body)
  "Run BODY with SPEC bound.

\\(fn (VAR SHAPE) BODY...)"
  (declare (indent 1))
  `(let (,spec) ,@body))

(defvar shapes-count 0
  "How many shapes were drawn.")

(defvar shapes-undocumented 0)
(defvar shapes-declared)

(defvar-local shapes-local nil "Each buffer's own shape.")

(defconst shapes-sides 4 "Sides of a square.")

(defface shapes-outline '((t :inherit bold))
  "Face of a shape's outline."
  :version "28.1")

(provide 'shapes)
;;; shapes.el ends here
"""


def read(text: str, rel: str = "shapes.el") -> dict[str, Document]:
    return {d.uri: d for d in api_documents([ElispFile(P(rel), rel, text)], "local")}


def test_a_file_becomes_its_documented_definitions_and_its_package() -> None:
    docs = read(SHAPES)
    assert sorted(docs) == [
        "elisp:shapes",
        "elisp:shapes-area",
        "elisp:shapes-count",
        "elisp:shapes-draw",
        "elisp:shapes-local",
        "elisp:shapes-outline",
        "elisp:shapes-precision",
        "elisp:shapes-sides",
        "elisp:shapes-with",
        "elisp:shapes.el",
    ]  # shapes--internal: internal; shapes-constant: its string is its value;
    # shapes-undocumented, shapes-declared: no doc
    kinds = {u: d.meta["kind"] for u, d in docs.items()}
    assert kinds == {
        "elisp:shapes": "group",
        "elisp:shapes-area": "function",
        "elisp:shapes-count": "variable",
        "elisp:shapes-draw": "command",
        "elisp:shapes-local": "variable",
        "elisp:shapes-outline": "face",
        "elisp:shapes-precision": "user option",
        "elisp:shapes-sides": "constant",
        "elisp:shapes-with": "macro",
        "elisp:shapes.el": "package",
    }
    assert docs["elisp:shapes-area"].text == (
        "(shapes-area RADIUS &optional UNIT)\n\n"
        "Return the area of a circle of RADIUS.\n\nUNIT, when non-nil, names the unit.\n\n"
        "For example:\n\n```elisp\n(shapes-area 2)\n;; => 12.56\n```\n\n"
        "See `shapes-precision` and `quoted'."
    )
    assert docs["elisp:shapes-draw"].text == (
        "(shapes-draw SHAPE)\n\nDraw SHAPE in the current buffer.\n\n"
        "Bound to `M-x shapes-draw` in `shapes-mode`.\n\n"
        "Command: M-x shapes-draw.\nObsolete since 1.1; use `shapes-render` instead."
    )
    assert docs["elisp:shapes-with"].text == (
        "(shapes-with (VAR SHAPE) BODY...)\n\nRun BODY with SPEC bound."
    )
    assert docs["elisp:shapes-precision"].text == (
        "shapes-precision\n\nDigits shown after the point.\n\n"
        'Type: (choice (const :tag "None" nil) integer)\nDefault: 2\nGroup: shapes\n'
        "Added in: Shapes 1.1\n"
        "Safe as a file-local variable when its value satisfies `integerp`."
    )
    assert docs["elisp:shapes-count"].text == "shapes-count\n\nHow many shapes were drawn."
    assert docs["elisp:shapes-local"].text == (
        "shapes-local\n\nEach buffer's own shape.\n\nAutomatically becomes buffer-local when set."
    )
    assert docs["elisp:shapes-outline"].text == (
        "shapes-outline\n\nFace of a shape's outline.\n\nFace.\nGroup: shapes\nAdded in: Emacs 28.1"
    )
    assert docs["elisp:shapes"].text == "shapes\n\nShapes on a plane.\n\nParent group: tools"
    # the group holds the name `shapes`: the package is named by its file
    assert docs["elisp:shapes.el"].text == (
        "shapes.el\n\nShapes and their areas\n\n"
        'Version: 1.2\nPackage-Requires: ((emacs "27.1"))\nKeywords: tools, lisp\n\n'
        "Shapes on a plane.  Use `shapes-area` for circles.\n\n## Usage:\n\n"
        "```elisp\n(require 'shapes)\n(shapes-area 2)\n```"
    )
    area = docs["elisp:shapes-area"]
    assert area.meta["signature"] == "(shapes-area RADIUS &optional UNIT)"
    assert area.meta["line"] == 33 and area.meta["language"] == "elisp"
    assert area.meta["qualname"] == "shapes-area" and area.title == "shapes-area"
    assert docs["elisp:shapes-count"].meta["signature"] == ""
    assert docs["elisp:shapes.el"].meta["line"] == 1


def test_the_package_takes_the_feature_name_when_nothing_else_holds_it() -> None:
    docs = read(
        ";;; tiny.el --- A tiny package\n\n;;; Commentary:\n\n;; Does little.\n\n"
        ';;; Code:\n(defun tiny-go () "Go." nil)\n(provide \'tiny-pkg)\n'
    )
    assert docs["elisp:tiny-pkg"].text == "tiny-pkg\n\nA tiny package\n\nDoes little."
    assert docs["elisp:tiny-pkg"].meta["kind"] == "package"
    bare = read(";;; bare.el --- Only a summary\n(defvar bare-x 1)\n", "lisp/bare.el")
    assert bare["elisp:bare"].text == "bare\n\nOnly a summary"


EDGES = r"""(defvar edges-chars (list ?a ?\( ?\) ?\" ?\; ?( ?) ?\C-x ?\M-\C-a ?\^I ?\\ ?\s)
  "Characters that look like brackets.")

(defun edges-after-chars () "Read past character literals." (list ?\( ?\[ ?\]))

(defvar edges-string "a (string; with \"quotes\" and a \\ backslash\
 joined" "A string with brackets.")

(defun edges? (x) "A symbol with a question mark." (if x? ?y ?z))

(defvar edges-vector [a (b "c)") ?\]] "A vector.")

(defvar edges-record #s(hash-table data (a 1)) "A record.")

(defalias 'edges-bytecode #[(x) "\300\207" [x] 1] "Compiled.")

(eval-and-compile
  (defun edges-in-progn-like () "Inside `eval-and-compile'." nil))

(when (fboundp 'foo)
  (progn
    (defun edges-in-when () "Inside a `when' and a `progn'." nil)))

(with-eval-after-load 'bar
  (defvar edges-later 1 "After bar."))

(unless nil (defconst edges-unless 2 "Inside `unless'."))

(defun edges-\.dotted\ name () "An escaped symbol." nil)

(defun edges-last (a . rest) "After everything." (cons a rest))
"""


def test_the_reader_reads_emacs_lisp_syntax_without_losing_its_place() -> None:
    docs = read(EDGES, "edges.el")
    assert sorted(docs) == [
        "elisp:edges-.dotted name",
        "elisp:edges-after-chars",
        "elisp:edges-bytecode",
        "elisp:edges-chars",
        "elisp:edges-in-progn-like",
        "elisp:edges-in-when",
        "elisp:edges-last",
        "elisp:edges-later",
        "elisp:edges-record",
        "elisp:edges-string",
        "elisp:edges-unless",
        "elisp:edges-vector",
        "elisp:edges?",
    ]
    assert docs["elisp:edges-last"].text == "(edges-last A &rest REST)\n\nAfter everything."
    assert docs["elisp:edges-last"].meta["line"] == 31
    assert docs["elisp:edges?"].text == "(edges? X)\n\nA symbol with a question mark."
    assert docs["elisp:edges-in-when"].text == ("(edges-in-when)\n\nInside a `when` and a `progn`.")
    assert docs["elisp:edges-bytecode"].text == (
        "edges-bytecode\n\nAn alias.\n\nCompiled."
    )  # a target that is no symbol


def test_forms_atoms_strings_and_characters_are_read() -> None:
    forms = read_forms(r'(a ?\( "s\"t(" ?\" b) [x ?\]] ; (c' + "\n'(d . e) #'f `(g ,h ,@i)")
    assert [f.kind for f in forms] == ["(", "[", "'", "#'", "`"]
    assert [x.kind for x in forms[0].items] == ["sym", "char", "str", "char", "sym"]
    assert [x.text for x in forms[0].items] == ["a", r"?\(", r'"s\"t("', r"?\"", "b"]
    assert string_value(forms[0].items[2]) == 's"t('
    assert shown(forms[1]) == r"[x ?\]]"
    assert shown(forms[2]) == "'(d . e)" and shown(forms[4]) == "`(g ,h ,@i)"
    assert shown(read_forms("(a ;; note\n  b\n\n c)")[0]) == "(a b c)"
    assert shown(read_forms('#s(r 1) #[(x) "\\300" [x] 1] #("s" 0 1 (face bold))')[0]) == (
        "#s(r 1)"
    )
    assert [f.kind for f in read_forms('#s(r 1) #[(x) "b" [x] 1] #("s" 0 1 (face bold))')] == [
        "#s(",
        "#[",
        "#(",
    ]
    assert [x.text for x in read_forms("(?\\C-x ?\\M-\\C-a ?\\^I ?a)")[0].items] == [
        "?\\C-x",
        "?\\M-\\C-a",
        "?\\^I",
        "?a",
    ]
    value = read_forms(
        r'"a\nb\tc\\d\"e\x41\ f\u00e9\101 \
g\s"'
    )[0]
    assert string_value(value) == 'a\nb\tc\\d"eAfé\x41 g '
    assert [f.kind for f in read_forms(") ] (a]) b")] == ["(", "sym"]  # strays dropped
    unclosed = read_forms('(a (b "c')[0]
    assert [x.kind for x in unclosed.items] == ["sym", "("]
    assert [x.kind for x in unclosed.items[1].items] == ["sym", "str"]


def test_each_definition_form_is_read() -> None:
    docs = read(
        "(cl-defun kit-make (name &key (type 'plain) ((:size sz) 3) &optional (x 1))\n"
        '  "Make a kit named NAME."\n  name)\n'
        '(cl-defmacro kit-do ((var list) &body body) "Loop over LIST." body)\n'
        '(defsubst kit-fast (x) "Fast." x)\n'
        '(define-inline kit-inline (x) "Inlined." (inline-quote ,x))\n'
        '(cl-defgeneric kit-size (kit) "Size of KIT.")\n'
        "(cl-defmethod kit-size ((kit list)) (length kit))\n"
        "(cl-defgeneric kit-weight (kit))\n(cl-defmethod kit-weight :around ((k vector) &optional _unit)\n"
        '  "Weigh a vector K." 0)\n'
        '(defcustom kit-style \'plain "Style."\n  :type \'symbol :group \'kits :version "29.1"\n'
        "  :options '(plain fancy))\n"
        '(define-minor-mode kit-mode "Toggle Kit mode." :lighter " Kit" :global t)\n'
        '(define-minor-mode kit-old-mode "Old style." nil " Old" nil)\n'
        '(define-globalized-minor-mode global-kit-mode kit-mode kit-on "Kit everywhere.")\n'
        '(define-derived-mode kit-list-mode tabulated-list-mode "Kits"\n'
        '  "Major mode for kits.\n\n\\\\{kit-list-mode-map}" (setq x 1))\n'
        "(defalias 'kit-alias #'kit-make \"Make a kit, by another name.\")\n"
        "(defalias 'kit-bare #'kit-make)\n"
        '(defalias \'kit-lambda (lambda (a b) "Add A and B." (interactive) (+ a b)))\n'
        "(define-obsolete-function-alias 'kit-old #'kit-make \"1.0\")\n"
        '(define-obsolete-variable-alias \'kit-old-style \'kit-style "1.0" "Old style.")\n'
        '(defgroup kits nil "Kits." :group \'tools)\n'
        '(cl-defstruct (kit-box (:constructor kit-box-new)) "A box."\n'
        '  (size 0 :documentation "Its size.") color)\n'
        "(cl-defstruct kit-nodoc a b)\n"
        '(defclass kit-thing (kit-base) ((name :initarg :name :documentation "Its name."))\n'
        '  "A thing.")\n'
        '(transient-define-prefix kit-dispatch () "Dispatch kits." [("k" "Kit" kit-make)])\n'
        '(define-skeleton kit-skeleton "Insert a kit." nil "kit")\n',
        "kit.el",
    )
    got = {u: (d.meta["kind"], d.meta["signature"]) for u, d in docs.items()}
    assert got == {
        "elisp:kit-make": ("function", "(kit-make NAME &key TYPE SZ &optional X)"),
        "elisp:kit-do": ("macro", "(kit-do (VAR LIST) &body BODY)"),
        "elisp:kit-fast": ("function", "(kit-fast X)"),
        "elisp:kit-inline": ("function", "(kit-inline X)"),
        "elisp:kit-size": ("function", "(kit-size KIT)"),
        "elisp:kit-weight": ("method", "(kit-weight :around (K vector) &optional UNIT)"),
        "elisp:kit-style": ("user option", ""),
        "elisp:kit-mode": ("minor mode", "(kit-mode &optional ARG)"),
        "elisp:kit-old-mode": ("minor mode", "(kit-old-mode &optional ARG)"),
        "elisp:global-kit-mode": ("minor mode", "(global-kit-mode &optional ARG)"),
        "elisp:kit-list-mode": ("major mode", "(kit-list-mode)"),
        "elisp:kit-alias": ("alias", ""),
        "elisp:kit-lambda": ("command", "(kit-lambda A B)"),
        "elisp:kit-old": ("alias", ""),
        "elisp:kit-old-style": ("alias", ""),
        "elisp:kits": ("group", ""),
        "elisp:kit-box": ("struct", ""),
        "elisp:kit-thing": ("class", ""),
        "elisp:kit-dispatch": ("command", "(kit-dispatch)"),
        "elisp:kit-skeleton": ("command", "(kit-skeleton &optional STR ARG)"),
    }  # kit-bare: an alias with no doc; kit-nodoc: a struct with no doc
    assert docs["elisp:kit-style"].text == (
        "kit-style\n\nStyle.\n\nType: symbol\nDefault: 'plain\nGroup: kits\n"
        "Added in: Emacs 29.1\nOptions: `plain`, `fancy`"
    )
    assert docs["elisp:kit-mode"].text == (
        "(kit-mode &optional ARG)\n\nToggle Kit mode.\n\n"
        'Command: M-x kit-mode.\nGlobal minor mode.\nLighter: " Kit"'
    )
    assert docs["elisp:kit-old-mode"].text.endswith('Command: M-x kit-old-mode.\nLighter: " Old"')
    assert docs["elisp:global-kit-mode"].text.endswith("Global minor mode.")
    assert docs["elisp:kit-list-mode"].text == (
        "(kit-list-mode)\n\nMajor mode for kits.\n\n"
        "Derived from `tabulated-list-mode`.\nCommand: M-x kit-list-mode."
    )
    assert docs["elisp:kit-alias"].text == (
        "kit-alias\n\nAn alias for `kit-make`.\n\nMake a kit, by another name."
    )
    assert docs["elisp:kit-old"].text == (
        "kit-old\n\nAn alias for `kit-make`.\n\nObsolete since 1.0; use `kit-make` instead."
    )
    assert docs["elisp:kit-old-style"].text == (
        "kit-old-style\n\nAn alias for `kit-style`.\n\nOld style.\n\n"
        "Obsolete since 1.0; use `kit-style` instead."
    )
    assert docs["elisp:kit-lambda"].text == (
        "(kit-lambda A B)\n\nAdd A and B.\n\nCommand: M-x kit-lambda."
    )
    assert docs["elisp:kit-weight"].text == (
        "(kit-weight :around (K vector) &optional UNIT)\n\nWeigh a vector K."
    )
    assert docs["elisp:kit-box"].text == (
        "kit-box\n\nA box.\n\nSlots:\n- `size`: Its size.\n- `color`"
    )
    assert docs["elisp:kit-thing"].text == (
        "kit-thing\n\nA thing.\n\nSuperclasses: `kit-base`\nSlots:\n- `name`: Its name."
    )
    assert docs["elisp:kit-dispatch"].text == (
        "(kit-dispatch)\n\nDispatch kits.\n\nCommand: M-x kit-dispatch."
    )
    assert docs["elisp:kits"].text == "kits\n\nKits.\n\nParent group: tools"


def test_commands_are_told_from_functions_after_declare() -> None:
    docs = read(
        '(defun c-one () "Interactive after declare."\n'
        "  (declare (interactive-only t)) (interactive) nil)\n"
        '(defun c-two () "Interactive later: a function." (message "x") (interactive))\n'
        '(defun c-three () "Doc." (declare (advertised-calling-convention (a) "1.0"))\n'
        '  (interactive "p") nil)\n'
        '(cl-defun c-four (&key a) "A cl command." (interactive) a)\n'
        '(defmacro c-five () "A macro is never a command." (interactive) nil)\n',
        "c.el",
    )
    kinds = {u: (d.meta["kind"], d.meta["signature"]) for u, d in docs.items()}
    assert kinds == {
        "elisp:c-one": ("command", "(c-one)"),
        "elisp:c-two": ("function", "(c-two)"),
        "elisp:c-three": ("command", "(c-three A)"),
        "elisp:c-four": ("command", "(c-four &key A)"),
        "elisp:c-five": ("macro", "(c-five)"),
    }


def test_obsolete_markers_and_first_definitions() -> None:
    docs = read(
        '(defun o-old (x) "Old." x)\n'
        "(make-obsolete 'o-old 'o-new \"2.0\")\n"
        '(defvar o-var 1 "A var.")\n'
        '(make-obsolete-variable \'o-var "set `o-other\' instead" "3.0")\n'
        '(defun o-gone () "Gone." (declare (obsolete nil "4.0")) nil)\n'
        '(defun o-twice (a) "The first." a)\n'
        '(defun o-twice (a b) "The second." a)\n'
        '(defvar o-face-name \'o-face "Names a face.")\n'
        '(defface o-face-name \'((t)) "The face wins over its variable.")\n',
        "o.el",
    )
    assert docs["elisp:o-old"].text == (
        "(o-old X)\n\nOld.\n\nObsolete since 2.0; use `o-new` instead."
    )
    assert docs["elisp:o-var"].text == (
        "o-var\n\nA var.\n\nObsolete since 3.0; set `o-other` instead."
    )
    assert docs["elisp:o-gone"].text == "(o-gone)\n\nGone.\n\nObsolete since 4.0."
    assert docs["elisp:o-twice"].text == "(o-twice A)\n\nThe first."
    assert docs["elisp:o-face-name"].meta["kind"] == "face"


def test_across_files_a_function_wins_over_a_group_and_the_package_steps_aside() -> None:
    files = [
        ElispFile(P("a-groups.el"), "a", '(defgroup tool nil "The tool group.")\n'),
        ElispFile(
            P("tool.el"),
            "t",
            ';;; tool.el --- The tool\n(defun tool () "Run the tool." (interactive))\n'
            '(defvar tool-x 1 "X.")\n(provide \'tool)\n',
        ),
        ElispFile(P("z-tool.el"), "z", ";;; tool-x.el --- Also\n(provide 'tool-x)\n"),
    ]
    docs = {d.uri: d for d in api_documents(files, "local")}
    assert docs["elisp:tool"].meta["kind"] == "command"
    assert docs["elisp:tool.el"].text == "tool.el\n\nThe tool"
    assert docs["elisp:tool-x"].meta["kind"] == "variable"
    assert docs["elisp:tool-x.el"].text == "tool-x.el\n\nAlso"


def test_docstring_markup_becomes_markdown() -> None:
    assert substitute("Use `foo' and ‘bar’, \\[save-buffer] \\{map}\\<map>here.") == (
        "Use `foo` and `bar`, `M-x save-buffer` here."
    )
    assert substitute("Literal \\=\\[x] and \\=`y'.") == "Literal \\[x] and `y'."
    assert substitute("Nor `\\=`' alone.") == "Nor `` ` `` alone."  # a backtick's span
    assert markdown("One line.") == "One line."
    assert markdown("Summary.\nMore text\nhere.") == "Summary.\n\nMore text\nhere."
    assert markdown("No period\nso one paragraph") == "No period\nso one paragraph"
    assert markdown("Kinds:\n  a - first\n  b - second\nAfter.") == (
        "Kinds:\n```elisp\na - first\nb - second\n```\nAfter."
    )  # after a line ending ":" too
    assert markdown("Goes to *Messages* and `*scratch*'.") == (
        "Goes to `*Messages*` and `*scratch*`."
    )
    assert markdown("Fenced:\n\n```\n  kept\n```\nAfter.") == "Fenced:\n\n```\n  kept\n```\nAfter."
    assert markdown("Wide.\n\n    (deep)\n      (deeper)\n\nBack.") == (
        "Wide.\n\n```elisp\n(deep)\n  (deeper)\n```\n\nBack."
    )


def test_fn_usage_replaces_the_arguments() -> None:
    docs = read(
        '(defun u-one (&rest args) "Do it.\n\n\\(fn A &optional B)" args)\n'
        '(defun u-none (&rest _) "Nothing.\n\n(fn)" nil)\n'
        '(defun u-kept (x) "The (fn X) inside stays." x)\n',
        "u.el",
    )
    assert docs["elisp:u-one"].text == "(u-one A &optional B)\n\nDo it."
    assert docs["elisp:u-none"].text == "(u-none)\n\nNothing."
    assert docs["elisp:u-kept"].text == "(u-kept X)\n\nThe (fn X) inside stays."


def test_tests_generated_files_and_files_without_docs_are_counted() -> None:
    assert is_elisp("magit.el") and is_elisp("A.EL") and not is_elisp("magit.elc")
    assert SUFFIXES == (".el",) and URI_PREFIX == "elisp:"
    assert FIXES[ELISP_TEST].endswith("the source's elisp: text reads them as text")
    assert FIXES[ELISP_NO_API] == FIXES[ELISP_TEST] == FIXES[ELISP_GENERATED]
    assert is_test(P("test/magit-tests.el")) and is_test(P("lisp/magit-test.el"))
    assert is_test(P("test-helper.el")) and is_test(P("tests/helpers.el"))
    assert not is_test(P("lisp/testing.el")) and not is_test(P("lisp/magit.el"))
    cookie = ";;; x.el --- x  -*- no-byte-compile: t -*-\n;; Automatically generated.\n"
    assert is_generated(P("x.el"), cookie)
    assert not is_generated(P("x.el"), ";;; x.el --- x  -*- no-byte-compile: t -*-\n")
    assert is_generated(P("magit-autoloads.el"), "") and is_generated(P("magit-pkg.el"), "")
    assert is_generated(P("loaddefs.el"), "") and is_generated(P("cl-loaddefs.el"), "")
    plain = "(defun plain (x) x)\n(defvar plain-v 1)\n"
    files = [
        ElispFile(P("test/shapes-tests.el"), "t", SHAPES),
        ElispFile(P("shapes-autoloads.el"), "g", SHAPES),
        ElispFile(P("gen.el"), "c", cookie + SHAPES),
        ElispFile(P("plain.el"), "p", plain),
        ElispFile(P("shapes.el"), "s", SHAPES),
    ]
    rejects = CollectResult()
    docs = api_documents(files, "local", rejects)
    assert len(docs) == 10
    assert rejects.rejects == {ELISP_TEST: 1, ELISP_GENERATED: 2, ELISP_NO_API: 1}
    assert rejects.samples[ELISP_NO_API] == ["p"]


def test_malformed_emacs_lisp_never_raises() -> None:
    for text in [
        '(defun f () "doc',
        "(defun",
        "(defun f",
        '(defvar "doc")',
        "(defcustom x)",
        '(defcustom x 1 "D." :type)',
        '(defalias)\n(defalias \'a)\n(defalias 1 2 "d")',
        "(define-minor-mode)",
        '(cl-defmethod m "d")',
        '(cl-defstruct) (defclass c) (defclass c () x "d")',
        "(make-obsolete) (make-obsolete 'a)",
        ')))(defun g () "G." nil)',
        "?",
        "?\\",
        '"unterminated \\',
        "#s(#[#(",
        "' ` , ,@ #'",
        "",
    ]:
        for doc in read(text, "m.el").values():
            assert doc.uri.startswith("elisp:") and doc.text


def test_any_text_reads_without_an_error() -> None:
    pieces = [
        "(defun f ", "(defmacro m ", "(defvar v ", "(defcustom o ", "(defface x ",
        "(cl-defmethod g ", "(define-minor-mode n ", "(defalias 'a ", "(cl-defstruct s ",
        '"Doc." ', "(x &optional y) ", "(interactive) ", "(declare (obsolete b \"1\")) ",
        ":type 'integer ", ":group 'g ", "x ", ")\n", "]", "(", "[", "#s(", "#[", "#(",
        '"', "\\", "?", "?\\(", "?\\C-x ", ";", "\n", "'", "`", ",", ",@", "#'", "(progn ",
        "(when t ", ";;; p.el --- P\n", ";;; Commentary:\n", ";; text\n", "\\\\[cmd]",
        "\\(fn A)", "    ", "(provide 'p)",
    ]  # fmt: skip

    def reader(text: str) -> list[Document]:
        return api_documents([ElispFile(P("p.el"), "m", text)], "local")

    assert fuzzed(reader, pieces, "elisp:") > 0


def test_a_package_folder_is_read_by_init_and_its_questions_read_the_call(
    tmp_path: Path,
) -> None:
    import gzip

    from apitree import ask, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    el = (
        ";;; tidy.el --- Keep buffers tidy  -*- lexical-binding: t -*-\n\n;;; Code:\n\n"
        '(defcustom tidy-delay 2\n  "Seconds of idle time before `tidy-buffer\' runs."\n'
        "  :type 'number\n  :group 'tidy)\n\n"
        '(defun tidy-buffer (&optional BUFFER)\n  "Remove trailing whitespace from BUFFER, the current one if nil."\n'
        "  (interactive)\n  (ignore buffer))\n\n(provide 'tidy)\n"
    )
    write_tree(tmp_path / "tidy", {"README.md": "# tidy\n"})
    (tmp_path / "tidy" / "tidy.el").write_text(el)
    (tmp_path / "tidy" / "tidy-extra.el.gz").write_bytes(
        gzip.compress(b'(defun tidy-extra-run ()\n  "Run every extra tidier once."\n  nil)\n')
    )
    entry = source_entry(str(tmp_path / "tidy"))
    assert "*.el" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert {"elisp:tidy-buffer", "elisp:tidy-delay", "elisp:tidy-extra-run"} <= set(docs)
    asked = ask(docs["elisp:tidy-buffer"])
    assert asked["signature"] == "`(tidy-buffer &optional BUFFER)`"
    assert asked["what_does"] == "Remove trailing whitespace from BUFFER, the current one if nil."
    assert ask(docs["elisp:tidy-delay"], ["signature"]) == {}  # an option: no call
