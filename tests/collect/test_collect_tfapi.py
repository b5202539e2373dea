"""Terraform modules read as their reference (what terraform-docs writes and the Registry
shows): each module a document (`terraform:terraform-aws-vpc`) listing its requirements,
inputs, outputs, resources and module calls, each documented variable one
(`terraform:terraform-aws-vpc:var.cidr`) and each documented output one
(`terraform:terraform-aws-vpc:output.vpc_id`), from a small reader of HCL's native syntax
(and of the JSON syntax)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from pathlib import PurePosixPath as P

from jupiter.collect.result import CollectResult, SourceFile
from jupiter.collect.tfapi import (
    FIXES,
    MAX_BYTES,
    TERRAFORM_BAD_SYNTAX,
    TERRAFORM_EXAMPLE,
    TERRAFORM_NO_API,
    TERRAFORM_TOO_BIG,
    TERRAFORM_VENDORED,
    TERRAFORM_WRAPPER,
    URI_PREFIX,
    api_documents,
    first_sentence,
    is_terraform,
)
from jupiter.records import Document


def read(
    files: dict[str, str], top: str = "net"
) -> tuple[dict[str, Document], CollectResult, list[Document]]:
    got = [SourceFile(P(name), f"/src/{name}", text) for name, text in files.items()]
    rejects = CollectResult()
    docs = api_documents(got, "local", rejects, top)
    return {d.uri: d for d in docs}, rejects, docs


VARIABLES = """\
variable "cidr" {
  description = "The IPv4 CIDR block for the VPC."
  type        = string
  default     = "10.0.0.0/16"
}

variable "name" {
  description = "Name of the VPC.\\nUsed in tags as \\"Name\\"."
  type        = string
}

variable "secret" {
  description = "The password."
  type        = string
  sensitive   = true
  nullable    = false
  ephemeral   = true
  validation {
    condition     = length(var.secret) >= 8
    error_message = "The password must be at least 8 characters."
  }
}

variable "anything" {
  description = "Anything at all."
}

variable "undocumented" {
  type    = number
  default = 3
}
"""


def test_names_the_files_it_takes() -> None:
    assert is_terraform("main.tf") and is_terraform("modules/x/VARIABLES.TF")
    assert is_terraform("main.tf.json")
    assert not is_terraform("terraform.tfvars") and not is_terraform("x.tftest.hcl")
    assert not is_terraform("main.json") and not is_terraform("tf")
    assert URI_PREFIX == "terraform:"
    reasons = (TERRAFORM_NO_API, TERRAFORM_BAD_SYNTAX, TERRAFORM_EXAMPLE, TERRAFORM_WRAPPER)
    for reason in (*reasons, TERRAFORM_VENDORED, TERRAFORM_TOO_BIG):
        assert reason.startswith("terraform_") and "terraform" in FIXES[reason]


def test_a_variable_is_its_signature_documentation_and_facts() -> None:
    docs, rejects, _ = read({"variables.tf": VARIABLES})
    cidr = docs["terraform:net:var.cidr"]
    assert cidr.text == (
        'variable "cidr": string = "10.0.0.0/16"\n\n'
        "The IPv4 CIDR block for the VPC.\n\n"
        "Type: `string`\n"
        'Default: `"10.0.0.0/16"`\n'
        "Of: module `net`"
    )
    assert cidr.title == "net:var.cidr"
    assert cidr.meta["kind"] == "variable" and cidr.meta["line"] == 1
    assert cidr.meta["module"] == "net" and cidr.meta["language"] == "terraform"
    assert cidr.meta["signature"] == 'variable "cidr": string = "10.0.0.0/16"'
    assert cidr.meta["origin"] == "/src/variables.tf"
    # escapes read; no default: required
    assert docs["terraform:net:var.name"].text == (
        'variable "name": string (required)\n\n'
        'Name of the VPC.\nUsed in tags as "Name".\n\n'
        "Type: `string`\nRequired: yes\nOf: module `net`"
    )
    assert docs["terraform:net:var.secret"].text == (
        'variable "secret": string (required)\n\n'
        "The password.\n\n"
        "Type: `string`\n"
        "Required: yes\n"
        "Sensitive: yes\n"
        "Ephemeral: yes\n"
        "Nullable: no\n"
        "Validation: The password must be at least 8 characters. "
        "(condition: `length(var.secret) >= 8`)\n"
        "Of: module `net`"
    )
    # no type: any, as terraform-docs shows it
    assert docs["terraform:net:var.anything"].text.startswith(
        'variable "anything": any (required)\n\nAnything at all.\n\nType: `any`\n'
    )
    # no documentation: no document of its own, but the module lists it
    assert "terraform:net:var.undocumented" not in docs
    assert "- `undocumented` (`number`, default `3`)\n" in docs["terraform:net"].text + "\n"
    assert rejects.rejects == {}


OBJECTS = """\
variable "timeouts" {
  description = "Timeouts"
  type = object({
    create = optional(string)
    delete = optional(string, "10m")
  })
  default = null
}

variable "node_groups" {
  description = "Map of node group definitions to create"
  type = map(object({
    instance_types = optional(list(string), ["m5.large"])
    min_size       = optional(number, 1) # at least one
    labels         = optional(map(string), {})
  }))
  default = {
    default = {
      min_size = 2
    }
  }
}

variable "rules" {
  description = "Ingress rules"
  type        = list(map(string))
  default = [
    {
      rule_no    = 100
      cidr_block = "0.0.0.0/0"
    },
    {
      rule_no         = 101
      ipv6_cidr_block = "::/0"
    },
  ]
}
"""


def test_object_types_and_defaults_short_inline_long_fenced() -> None:
    docs, _, _ = read({"variables.tf": OBJECTS})
    # written over lines but short: one line, a line break in an object is `, `
    assert docs["terraform:net:var.timeouts"].text == (
        'variable "timeouts": object({create = optional(string), '
        'delete = optional(string, "10m")}) = null\n\n'
        "Timeouts\n\n"
        'Type: `object({create = optional(string), delete = optional(string, "10m")})`\n'
        "Default: `null`\n"
        "Of: module `net`"
    )
    # long: the signature shortens it, the Type block keeps it as written, dedented
    assert docs["terraform:net:var.node_groups"].text == (
        'variable "node_groups": map(object({...})) = {default = {min_size = 2}}\n\n'
        "Map of node group definitions to create\n\n"
        "Type:\n"
        "```hcl\n"
        "map(object({\n"
        '  instance_types = optional(list(string), ["m5.large"])\n'
        "  min_size       = optional(number, 1) # at least one\n"
        "  labels         = optional(map(string), {})\n"
        "}))\n"
        "```\n"
        "Default: `{default = {min_size = 2}}`\n"
        "Of: module `net`"
    )
    rules = docs["terraform:net:var.rules"].text
    assert rules.startswith(
        'variable "rules": list(map(string)) = [{rule_no = 100, cidr_block = "0.0.0.0/0"}, '
        '{rule_no = 101, ipv6_cidr_block = "::/0"}]\n\n'
    )
    assert "Default:\n```hcl\n[\n  {\n    rule_no    = 100\n" in rules
    assert '    ipv6_cidr_block = "::/0"\n  },\n]\n```\nOf: module `net`' in rules
    module = docs["terraform:net"].text
    assert "- `node_groups` (`map(object({...}))`, default `{default = {min_size = 2}}`)" in module


OUTPUTS = """\
output "vpc_id" {
  description = "The ID of the VPC"
  value       = try(aws_vpc.this[0].id, null)
}

output "subnets" {
  description = "Subnets by zone. One per zone."
  value = {
    for k, s in aws_subnet.public : k => {
      id   = s.id
      cidr = s.cidr_block
    }
  }
  sensitive = true
}

output "plain" {
  value = 1
}
"""


def test_an_output_is_its_name_documentation_and_value() -> None:
    docs, _, _ = read({"outputs.tf": OUTPUTS})
    vpc = docs["terraform:net:output.vpc_id"]
    assert vpc.text == (
        'output "vpc_id"\n\nThe ID of the VPC\n\n'
        "Value: `try(aws_vpc.this[0].id, null)`\nOf: module `net`"
    )
    assert vpc.meta["kind"] == "output" and vpc.title == "net:output.vpc_id"
    # a `for` object keeps its items apart by spaces only; the object inside it by commas
    assert docs["terraform:net:output.subnets"].text == (
        'output "subnets"\n\nSubnets by zone. One per zone.\n\n'
        "Value: `{for k, s in aws_subnet.public : k => {id = s.id, cidr = s.cidr_block}}`\n"
        "Sensitive: yes\nOf: module `net`"
    )
    assert "terraform:net:output.plain" not in docs
    assert "Outputs:\n- `plain`\n- `subnets` (sensitive): Subnets by zone.\n- `vpc_id`: " in (
        docs["terraform:net"].text
    )


MAIN = """\
terraform {
  required_version = ">= 1.3"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
    random = ">= 3.0"
  }
}

provider "aws" {
  region = "eu-west-1"
}

locals {
  name = "${var.name}-%{ if var.x }x%{ endif }"
}

################################################################################
# VPC
################################################################################

resource "aws_vpc" "this" {
  count      = var.create ? 1 : 0
  cidr_block = var.cidr
}

# One subnet per zone.
# Public ones.
resource "aws_subnet" "public" {
  for_each = toset(var.azs)
  vpc_id   = aws_vpc.this[0].id

  lifecycle {
    ignore_changes = [tags]
  }
}

data "aws_region" "current" {}

module "label" {
  source  = "cloudposse/label/null"
  version = "0.25.0"
}

module "endpoints" {
  source   = "./modules/vpc-endpoints"
  for_each = var.endpoints
}

moved {
  from = aws_vpc.old
  to   = aws_vpc.this
}
"""


def test_the_module_document_lists_what_terraform_docs_lists() -> None:
    docs, rejects, _ = read(
        {"main.tf": MAIN, "variables.tf": VARIABLES, "outputs.tf": OUTPUTS},
        top="terraform-aws-vpc",
    )
    module = docs["terraform:terraform-aws-vpc"]
    assert module.text == (
        'module "terraform-aws-vpc"\n\n'
        "Terraform module `terraform-aws-vpc`: 5 inputs, 3 outputs, 2 resources, "
        "1 data source, 2 module calls.\n\n"
        "Requirements:\n"
        "- terraform `>= 1.3`\n"
        "- aws (`hashicorp/aws`) `>= 5.0`\n"
        "- random `>= 3.0`\n\n"
        "Inputs:\n"
        "- `anything` (`any`, required): Anything at all.\n"
        '- `cidr` (`string`, default `"10.0.0.0/16"`): The IPv4 CIDR block for the VPC.\n'
        "- `name` (`string`, required): Name of the VPC.\n"
        "- `secret` (`string`, required): The password.\n"
        "- `undocumented` (`number`, default `3`)\n\n"
        "Outputs:\n"
        "- `plain`\n"
        "- `subnets` (sensitive): Subnets by zone.\n"
        "- `vpc_id`: The ID of the VPC\n\n"
        "Resources:\n"
        "- `aws_subnet.public` (for_each): One subnet per zone.\n"
        "- `aws_vpc.this` (count)\n"
        "- `data.aws_region.current` (data source)\n\n"
        "Modules:\n"
        "- `endpoints` (source `./modules/vpc-endpoints`, for_each)\n"
        "- `label` (source `cloudposse/label/null`, version `0.25.0`)"
    )
    assert module.meta["kind"] == "module" and module.title == "terraform-aws-vpc"
    assert module.meta["origin"] == "/src/main.tf" and module.meta["line"] == 1
    assert module.meta["signature"] == 'module "terraform-aws-vpc"'
    assert sorted(docs) == [
        "terraform:terraform-aws-vpc",
        "terraform:terraform-aws-vpc:output.subnets",
        "terraform:terraform-aws-vpc:output.vpc_id",
        "terraform:terraform-aws-vpc:var.anything",
        "terraform:terraform-aws-vpc:var.cidr",
        "terraform:terraform-aws-vpc:var.name",
        "terraform:terraform-aws-vpc:var.secret",
    ]
    assert rejects.rejects == {}


def test_lists_are_capped() -> None:
    many = "".join(f'variable "v{i:03}" {{\n  default = {i}\n}}\n' for i in range(205))
    docs, _, _ = read({"variables.tf": many})
    text = docs["terraform:net"].text
    assert "- `v199` (`any`, default `199`)\n- ... and 5 more" in text
    assert "`v200`" not in text and "205 inputs" in text


HEREDOCS = """\
variable "policy" {
  description = <<-EOT
    The policy, as JSON.
      Indented: `${jsonencode({ a = "}" })}`.
  EOT
  type        = string
  default     = <<EOF
{
  "Version": "2012-10-17", "Statement": [], "Extra": "a long line to make it longer than eighty"
}
EOF
}

variable "template" {
  description = "A template: ${join(",", ["a", "b"])} and $${literal} and %{ if true }yes%{ endif }."
  default     = "100%"
}
"""


def test_heredocs_and_interpolations() -> None:
    docs, rejects, _ = read({"variables.tf": HEREDOCS})
    policy = docs["terraform:net:var.policy"].text
    # `<<-` dedents its text; a `}` inside an interpolation's string does not close it
    assert policy.startswith(
        'variable "policy": string = <<EOF { "Version": "2012-10-17", "Statement": [], '
        '"Extra": "a long line to make it longer than ei...\n\n'
        "The policy, as JSON.\n"
        '  Indented: `${jsonencode({ a = "}" })}`.\n\n'
    )
    assert policy.endswith(
        "Default:\n```hcl\n<<EOF\n{\n"
        '  "Version": "2012-10-17", "Statement": [], '
        '"Extra": "a long line to make it longer than eighty"\n'
        "}\nEOF\n```\nOf: module `net`"
    )
    template = docs["terraform:net:var.template"].text
    assert template.startswith('variable "template": any = "100%"\n\n')
    assert (
        'A template: ${join(",", ["a", "b"])} and ${literal} and %{ if true }yes%{ endif }.'
    ) in template
    assert rejects.rejects == {}


COMMENTED = """\
# A file of the hand-written kind.

# The CIDR block of the VPC.
# Must not overlap your other networks.
variable "cidr" {
  type    = string
  default = "10.0.0.0/16"
}

// Tags for everything.
// tflint-ignore: terraform_unused_declarations
variable "tags" {
  type    = map(string)
  default = {}
}

/*
 * The zones to use.
 */
variable "azs" {
  type = list(string)
}

# The description wins.
variable "described" {
  description = "From the description."
}

# Separated by a blank line: no documentation.

variable "far" {
  default = 1
}

################################################################################
# A banner right above
################################################################################
variable "bannered" {
  default = 2
}

# name = "commented-out code"
# tags = {}
variable "code_above" {
  default = 3
}

variable "empty" {
  description = ""
  default     = 4
}
"""


def test_comments_above_a_block_document_it_when_it_has_no_description() -> None:
    docs, _, _ = read({"variables.tf": COMMENTED})
    cidr = docs["terraform:net:var.cidr"]
    assert cidr.text == (
        'variable "cidr": string = "10.0.0.0/16"\n\n'
        "The CIDR block of the VPC.\nMust not overlap your other networks.\n\n"
        'Type: `string`\nDefault: `"10.0.0.0/16"`\nOf: module `net`'
    )
    assert cidr.meta["described_by"] == "comment"
    assert docs["terraform:net:var.tags"].text.split("\n\n")[1] == "Tags for everything."
    assert docs["terraform:net:var.azs"].text.split("\n\n")[1] == "The zones to use."
    described = docs["terraform:net:var.described"]
    assert described.text.split("\n\n")[1] == "From the description."
    assert described.meta["described_by"] == "description"
    for name in ("far", "bannered", "code_above", "empty"):
        assert f"terraform:net:var.{name}" not in docs
    assert sorted(u for u in docs if ":var." in u) == [
        "terraform:net:var.azs",
        "terraform:net:var.cidr",
        "terraform:net:var.described",
        "terraform:net:var.tags",
    ]


def test_modules_submodules_examples_wrappers() -> None:
    module = 'variable "x" {\n  description = "X."\n}\n'
    docs, rejects, _ = read(
        {
            "main.tf": module,
            "modules/flow-log/main.tf": module,
            "modules/flow-log/modules/inner/main.tf": module,
            "examples/complete/main.tf": module,
            "examples/complete/outputs.tf": 'output "o" {\n  description = "O."\n  value = 1\n}\n',
            "tests/fixture/main.tf": module,
            "wrappers/main.tf": module,
            "wrappers/flow-log/main.tf": module,
            ".terraform/modules/vpc/main.tf": module,
            "network/main.tf": module,
            "live/prod/main.tf": module,
            "net2/modules/subnets/main.tf": module,
        },
        top="terraform-aws-vpc",
    )
    assert sorted(u for u in docs if ":var." not in u) == [
        "terraform:live/prod",
        "terraform:net2//modules/subnets",
        "terraform:network",
        "terraform:terraform-aws-vpc",
        "terraform:terraform-aws-vpc//modules/flow-log",
        "terraform:terraform-aws-vpc//modules/flow-log/modules/inner",
    ]
    assert "terraform:terraform-aws-vpc//modules/flow-log:var.x" in docs
    root = docs["terraform:terraform-aws-vpc"].text
    assert root.endswith(
        "Submodules:\n"
        "- `terraform-aws-vpc//modules/flow-log`\n"
        "- `terraform-aws-vpc//modules/flow-log/modules/inner`\n\n"
        "Examples:\n- `examples/complete`\n- `tests/fixture`"
    )
    sub = docs["terraform:terraform-aws-vpc//modules/flow-log"]
    assert "A submodule of `terraform-aws-vpc`." in sub.text
    assert sub.meta["folder"] == "modules/flow-log"
    assert "A submodule of `net2`." in docs["terraform:net2//modules/subnets"].text
    assert rejects.rejects == {
        TERRAFORM_EXAMPLE: 3,
        TERRAFORM_WRAPPER: 2,
        TERRAFORM_VENDORED: 1,
    }
    assert rejects.samples[TERRAFORM_WRAPPER] == [
        "/src/wrappers/flow-log/main.tf",
        "/src/wrappers/main.tf",
    ]
    # without a folder name the root module is `root`
    docs, _, _ = read({"main.tf": module}, top="")
    assert sorted(docs) == ["terraform:root", "terraform:root:var.x"]


def test_bad_syntax_no_api_and_too_big_are_counted() -> None:
    bad = {
        "a/string.tf": 'variable "x" {\n  description = "oops\n}\n',
        "a/heredoc.tf": "locals {\n  x = <<EOF\nno end\n}\n",
        "a/comment.tf": '/* never closed\nvariable "x" {}\n',
        "a/brackets.tf": 'variable "x" {\n  default = [1, 2)\n}\n',
        "a/unclosed.tf": 'variable "x" {\n  default = 1\n',
        "a/interp.tf": 'variable "x" {\n  default = "${var.y"\n}\n',
        "a/item.tf": '"quoted" = 1\n',
        "a/noblock.tf": 'variable "x"\n',
        "a/json.tf.json": "[1, 2]",
        "a/badjson.tf.json": "{",
    }
    docs, rejects, _ = read(
        {
            **bad,
            "b/locals.tf": 'locals {\n  a = 1\n}\nprovider "aws" {}\n',
            "b/empty.tf": "# nothing here\n",
            "c/big.tf": 'variable "x" {\n  description = "X."\n}\n' + "#" * MAX_BYTES,
        }
    )
    assert docs == {}
    assert rejects.rejects == {
        TERRAFORM_BAD_SYNTAX: len(bad),
        TERRAFORM_NO_API: 2,
        TERRAFORM_TOO_BIG: 1,
    }
    assert rejects.samples[TERRAFORM_NO_API] == ["/src/b/empty.tf", "/src/b/locals.tf"]
    # one bad file spoils only itself
    docs, rejects, _ = read({**{"m/" + k[2:]: v for k, v in bad.items()}, "m/ok.tf": VARIABLES})
    assert "terraform:m:var.cidr" in docs and rejects.rejects == {TERRAFORM_BAD_SYNTAX: len(bad)}


def test_the_json_syntax() -> None:
    text = """{
  "terraform": {"required_providers": {"aws": {"source": "hashicorp/aws", "version": "~> 5.0"}}},
  "variable": {
    "region": {"description": "The region.", "type": "string", "default": "eu-west-1"},
    "zones": {"//": "The zones to use.", "type": "list(string)", "default": ["a", "b"]}
  },
  "output": {"arn": {"description": "The ARN.", "value": "${aws_s3_bucket.b.arn}"}},
  "resource": {"aws_s3_bucket": {"b": {"count": 1, "bucket": "x"}}}
}"""
    docs, rejects, _ = read({"mod/main.tf.json": text})
    assert docs["terraform:mod:var.region"].text == (
        'variable "region": string = "eu-west-1"\n\nThe region.\n\n'
        'Type: `string`\nDefault: `"eu-west-1"`\nOf: module `mod`'
    )
    assert docs["terraform:mod:var.region"].meta["line"] == 4
    assert docs["terraform:mod:var.zones"].text.startswith(
        'variable "zones": list(string) = ["a", "b"]\n\nThe zones to use.\n\n'
    )
    assert 'Value: `"${aws_s3_bucket.b.arn}"`' in docs["terraform:mod:output.arn"].text
    module = docs["terraform:mod"].text
    assert "Requirements:\n- aws (`hashicorp/aws`) `~> 5.0`\n\n" in module
    assert "Resources:\n- `aws_s3_bucket.b` (count)" in module
    assert rejects.rejects == {}


def test_the_first_of_a_name_in_path_order_wins() -> None:
    one = 'variable "x" {\n  description = "First."\n}\n'
    two = 'variable "x" {\n  description = "Second."\n  default = 1\n}\n'
    docs, _, listed = read({"b.tf": two, "a.tf": one})
    assert docs["terraform:net:var.x"].text.split("\n\n")[1] == "First."
    assert [d.uri for d in listed] == ["terraform:net", "terraform:net:var.x"]
    assert "1 input," in docs["terraform:net"].text


def test_expressions_read_whatever_their_shape() -> None:
    text = """\
variable "a" { description = "One line block." }
variable "b" {
  description = "Conditional over lines."
  default = (
    var.x
    ? "yes"
    : "no"
  )
}
variable "c" {
  description = "Calls, splats, a trailing comma."
  default = merge(
    { for k, v in var.m : k => v if v != null },
    [for s in aws_subnet.this[*].id : upper(s)],
    { "quoted key" : 1, other = -2.5e3 },
  )
}
variable "d" {
  description = "Unicode and CRLF."\r
  default     = "naïve"\r
}
"""
    docs, rejects, _ = read({"v.tf": text})
    assert rejects.rejects == {}
    assert docs["terraform:net:var.a"].text.startswith('variable "a": any (required)\n\nOne line')
    assert docs["terraform:net:var.b"].meta["signature"] == (
        'variable "b": any = (var.x ? "yes" : "no")'
    )
    c = docs["terraform:net:var.c"]
    assert c.meta["signature"] == (
        'variable "c": any = merge({ for k, v in var.m : k => v if v != null }, '
        "[for s in aws_subnet.this[*].id : upper(s)], {..."
    )
    assert c.text.endswith(
        "Default:\n```hcl\nmerge(\n"
        "  { for k, v in var.m : k => v if v != null },\n"
        "  [for s in aws_subnet.this[*].id : upper(s)],\n"
        '  { "quoted key" : 1, other = -2.5e3 },\n'
        ")\n```\nOf: module `net`"
    )
    assert docs["terraform:net:var.d"].text.startswith(
        'variable "d": any = "naïve"\n\nUnicode and CRLF.\n\n'
    )


def test_first_sentence() -> None:
    assert first_sentence("One. Two.") == "One."
    assert first_sentence("Use e.g. this one. Then") == "Use e.g. this one."
    assert first_sentence("Version 1.33 of it") == "Version 1.33 of it"
    assert first_sentence("First line\nsecond line.\n\nNext paragraph.") == (
        "First line second line."
    )


PIECES = [
    'variable "x" {',
    'output "o" {',
    "}",
    "{",
    '"',
    '"s"',
    "${",
    "%{",
    "$${",
    "<<EOF\n",
    "<<-EOT\n",
    "EOF\n",
    "  EOT\n",
    "[",
    "]",
    "(",
    ")",
    "/*",
    "*/",
    "# c\n",
    "// c\n",
    "\n",
    "\r\n",
    "description = ",
    "type = object({",
    "})",
    "default = ",
    "a = 1",
    "for k, v in x : k => v",
    "? 1 : 2",
    "\\",
    "é",
    "\ufeff",
    ",",
    "=",
    ":",
    "-",
    "*",
    "terraform {",
    "required_providers {",
    "aws = {",
]


def test_random_fragments_never_raise() -> None:
    rng = random.Random(7)
    start = time.process_time()  # this process's CPU: other tests' load aside
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40))) for _ in range(4000)]
    whole = MAIN + VARIABLES + OUTPUTS + HEREDOCS + OBJECTS
    texts += [whole[:cut] for cut in range(0, len(whole), 37)]
    for _ in range(1500):  # the valid text with a few random edits
        text = whole
        for _ in range(rng.randint(1, 3)):
            at, span = rng.randrange(len(text)), rng.randint(0, 20)
            text = text[:at] + rng.choice(["", *PIECES]) + text[at + span :]
        texts.append(text)
    texts += ["{" * 500 + "}" * 500, '"${' * 200, "a = " + "(" * 2000 + ")" * 2000]
    texts += ["a {\n" * 100 + "}\n" * 100, "a = " + "{b = " * 2000 + "}" * 2000]
    for i, text in enumerate(texts):
        rejects = CollectResult()
        name = f"f{i}.tf.json" if i % 10 == 0 else f"f{i}.tf"
        files = [SourceFile(P(name), name, text)]
        for doc in api_documents(files, "local", rejects, "fuzz"):
            assert doc.uri.startswith("terraform:fuzz") and doc.text
    assert time.process_time() - start < 20


def test_a_module_folder_is_read_by_init_and_its_inputs_are_asked_as_inputs(
    tmp_path: Path,
) -> None:
    """`jupiter init` on a folder of .tf files reads them as the module's reference, a
    `.tf.json` file as Terraform's ahead of the JSON reader; a variable is asked as an input
    of its module, its type when it says more than a bare type and its default when one is
    set; an output as an output."""

    from apitree import asked, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    variables = (
        'variable "cidr" {\n  description = "The IPv4 CIDR block of the network."\n'
        '  type = string\n  default = "10.0.0.0/16"\n}\n\n'
        'variable "subnets" {\n  description = "The subnets to create, one a zone."\n'
        "  type = list(string)\n}\n"
    )
    outputs = 'output "network_id" {\n  description = "The ID of the network."\n  value = 1\n}\n'
    extra = '{"variable": {"zone": {"description": "The zone the network lives in.", "type": "string"}}}'
    write_tree(
        tmp_path / "net",
        {"variables.tf": variables, "outputs.tf": outputs, "zone.tf.json": extra},
    )
    entry = source_entry(str(tmp_path / "net"))
    assert "*.tf" in entry["include"] and "*.tf.json" in entry["include"]  # type: ignore[operator]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == [
        "terraform:net",
        "terraform:net:output.network_id",
        "terraform:net:var.cidr",
        "terraform:net:var.subnets",
        "terraform:net:var.zone",
    ]

    cidr = asked(docs["terraform:net:var.cidr"])
    assert sorted(cidr.values()) == ["The IPv4 CIDR block of the network.", '`"10.0.0.0/16"`']
    assert any("`cidr`" in q and "`net`" in q for q in cidr)
    assert sorted(asked(docs["terraform:net:var.subnets"]).values()) == [
        "The subnets to create, one a zone.",
        "`list(string)`",
    ]
    output = asked(docs["terraform:net:output.network_id"])
    assert list(output.values()) == ["The ID of the network."]
    assert "output" in next(iter(output))
