"""Annotated configuration files read as the reference of their settings: each documented
setting a document (`config:<file>:<name>`), its text the setting's line as written over
its documentation, cleaned of comment markers, and the facts the file states (default,
section); the file a document of its opening prose and its settings."""

from __future__ import annotations

import time
from pathlib import Path
from pathlib import PurePosixPath as P

import pytest

from jupiter.collect import CollectResult, confdoc
from jupiter.collect.confdoc import (
    CONFIG_CUT,
    CONFIG_NO_API,
    CONFIG_NOT_ANNOTATED,
    CONFIG_SKIPPED,
    FIXES,
    URI_PREFIX,
    api_documents,
    is_config,
    looks_annotated,
    takes,
)
from jupiter.collect.result import SourceFile
from jupiter.records import Document


def read(name: str, text: str, rejects: CollectResult | None = None) -> dict[str, Document]:
    files = [SourceFile(P(f"etc/{name}"), f"/src/etc/{name}", text, {"repo": "r"})]
    docs = api_documents(files, "local", rejects)
    assert [d.uri for d in docs] == sorted(d.uri for d in docs)
    return {d.uri: d for d in docs}


REDIS = """\
# Redis configuration file example.
#
# Note on units: 1k => 1000 bytes

################################## NETWORK #####################################

# By default Redis listens on all interfaces.
#
# Examples:
#
# bind 192.168.1.100 10.0.0.1     # two addresses
# bind 127.0.0.1 ::1              # loopback
#
# ~~~ WARNING ~~~ Binding to all interfaces is dangerous.
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
bind 127.0.0.1 -::1

# Accept connections on the specified port.
# If port 0 is specified Redis will not listen on a TCP socket.
port 6379

# Unix socket.
#
# Specify the path for the Unix socket.
#
# unixsocket /run/redis.sock
# unixsocketperm 700

# The default value is 0, which implies no marking is required.
# socket-mark-id 0

############################## MEMORY MANAGEMENT ################################

# Set a memory usage limit to the specified amount of bytes.
# When the limit is reached Redis will try to remove keys.
#
# maxmemory <bytes>

# MAXMEMORY POLICY: how Redis will select what to remove.
#
# volatile-lru -> Evict using approximated LRU.
# noeviction -> Don't evict anything.
#
# The default is:
#
# maxmemory-policy noeviction

# It is possible for a master to stop accepting writes.
#
# min-replicas-to-write 3
# min-replicas-max-lag 10
#
# Setting one or the other to 0 disables the feature.

# In all the above cases the default is to delete objects in a blocking way,
# using the following configuration directives.

lazyfree-lazy-eviction no
lazyfree-lazy-expire no

# Save the DB to disk.
#
# save <seconds> <changes>
#
# Snapshotting can be disabled as in the following example:
#
# save ""
#
# You can set these explicitly by uncommenting the following line.
#
# save 3600 1 300 100
"""


def test_names_and_suffixes() -> None:
    for name in ("redis.conf", "my.cnf", "setup.cfg", "php.ini", "postgresql.conf.sample",
                 "a.conf.example", "a.conf.dist", "a.conf.default", "10-auth.conf.ext",
                 "php.ini-production", "php.ini-development", "main.cf", "main.cf.dist",
                 "master.cf", "sshd_config", "ssh_config", "torrc", "app.properties"):  # fmt: skip
        assert is_config(name), name
    for name in ("config.yml", "config.yaml", "pyproject.toml", "redis.md", "main.c", "conf"):
        assert not is_config(name), name
    assert takes("alacritty.yml", ALACRITTY) and takes("tool.toml", TOML)
    assert not takes("compose.yml", "services:\n  web:\n    image: nginx\n")
    assert URI_PREFIX == "config:" and ".conf" in confdoc.SUFFIXES


def test_looks_annotated_wants_three_settings_with_prose() -> None:
    assert looks_annotated(ALACRITTY)
    assert looks_annotated(TOML)
    few = "# The web service, which serves the site.\nweb: nginx\nimage: x\nports: 80\n"
    assert not looks_annotated(few)  # one documented setting
    values_only = "\n".join(f"#key{i}: {i}\n" for i in range(10))
    assert not looks_annotated(values_only)  # commented-out values, no prose
    short = "".join(f"# the value\nkey{i}: {i}\n" for i in range(5))
    assert not looks_annotated(short)  # fewer than 6 words above each
    sparse = ALACRITTY + "".join(f"k{i}: {i}\n" for i in range(100))
    assert not looks_annotated(sparse)  # under a fifth of its settings documented


def test_a_setting_is_documented_by_the_comment_block_above_it() -> None:
    docs = read("redis.conf", REDIS)
    port = docs["config:redis.conf:port"]
    assert port.text == (
        "port 6379\n\n"
        "Accept connections on the specified port. If port 0 is specified Redis will not "
        "listen on a TCP socket.\n\n"
        "Section: NETWORK"
    )
    assert port.title == "redis.conf:port"
    assert port.meta["kind"] == "setting" and port.meta["language"] == "config"
    assert port.meta["signature"] == "port 6379" and port.meta["line"] == 20
    assert port.meta["origin"] == "/src/etc/redis.conf" and port.meta["repo"] == "r"
    # a commented-out `key value` after the prose is the setting it documents
    assert docs["config:redis.conf:maxmemory"].text == (
        "maxmemory <bytes>\n\n"
        "Set a memory usage limit to the specified amount of bytes. When the limit is "
        "reached Redis will try to remove keys.\n\n"
        "Section: MEMORY MANAGEMENT"
    )
    # the tail of a paragraph: prose, then the setting on its last line
    assert docs["config:redis.conf:socket-mark-id"].text.startswith(
        "socket-mark-id 0\n\nThe default value is 0, which implies no marking is required."
    )
    # "# Examples:", "# volatile-lru -> ...": prose lines, no setting of their own
    assert not any(
        k in docs for k in ("config:redis.conf:volatile-lru", "config:redis.conf:Examples")
    )


def test_examples_of_a_key_are_fenced_where_they_stand() -> None:
    bind = read("redis.conf", REDIS)["config:redis.conf:bind"]
    assert bind.text == (
        "bind 127.0.0.1 -::1\n\n"
        "By default Redis listens on all interfaces.\n\n"
        "Examples:\n\n"
        "```\n"
        "bind 192.168.1.100 10.0.0.1     # two addresses\n"
        "bind 127.0.0.1 ::1              # loopback\n"
        "```\n\n"
        "~~~ WARNING ~~~ Binding to all interfaces is dangerous.\n\n"
        "Section: NETWORK"
    )
    assert bind.meta["line"] == 16  # the active line


def test_one_document_per_key_with_all_its_lines() -> None:
    save = read("redis.conf", REDIS)["config:redis.conf:save"]
    assert save.text == (
        "save 3600 1 300 100\n\n"
        "Save the DB to disk.\n\n"
        "```\nsave <seconds> <changes>\n```\n\n"
        "Snapshotting can be disabled as in the following example:\n\n"
        '```\nsave ""\n```\n\n'
        "You can set these explicitly by uncommenting the following line.\n\n"
        "Section: MEMORY MANAGEMENT"
    )
    docs = read("main.cf", POSTFIX)
    assert docs["config:main.cf:myorigin"].text == (
        "myorigin = /etc/mailname\nmyorigin = $myhostname\nmyorigin = $mydomain\n\n"
        "The myorigin parameter specifies the domain that locally-posted mail appears to "
        "come from.\n\n"
        "Section: SENDING MAIL"
    )
    # a commented-out value continued on an indented line; the active line first
    assert docs["config:main.cf:mydestination"].text == (
        "mydestination = $myhostname, localhost\n\n"
        "The mydestination parameter specifies the list of domains.\n\n"
        "```\nmydestination = $myhostname, localhost.$mydomain,\n       mail.$mydomain\n```\n\n"
        "Section: SENDING MAIL"
    )


def test_a_run_of_settings_shares_its_block() -> None:
    docs = read("redis.conf", REDIS)
    sock = docs["config:redis.conf:unixsocket"].text
    perm = docs["config:redis.conf:unixsocketperm"].text
    assert sock == (
        "unixsocket /run/redis.sock\n\n"
        "Unix socket.\n\nSpecify the path for the Unix socket.\n\n"
        "Section: NETWORK\n"
        "Documented together with: `unixsocketperm`"
    )
    assert perm.startswith("unixsocketperm 700\n\nUnix socket.\n\nSpecify the path")
    assert perm.endswith("Documented together with: `unixsocket`")
    # prose after the run, at the block's end, documents it too
    assert docs["config:redis.conf:min-replicas-max-lag"].text == (
        "min-replicas-max-lag 10\n\n"
        "It is possible for a master to stop accepting writes.\n\n"
        "Setting one or the other to 0 disables the feature.\n\n"
        "Section: MEMORY MANAGEMENT\n"
        "Documented together with: `min-replicas-to-write`"
    )


def test_prose_a_blank_line_above_settings_leads_them() -> None:
    docs = read("redis.conf", REDIS)
    assert docs["config:redis.conf:lazyfree-lazy-expire"].text == (
        "lazyfree-lazy-expire no\n\n"
        "In all the above cases the default is to delete objects in a blocking way, using "
        "the following configuration directives.\n\n"
        "Section: MEMORY MANAGEMENT\n"
        "Documented together with: `lazyfree-lazy-eviction`"
    )
    # but not the file's opening text: sshd_config's header leads no `Include`
    assert "config:sshd_config:Include" not in read("sshd_config", SSHD)


def test_a_default_is_only_what_the_file_says() -> None:
    docs = read("redis.conf", REDIS)
    policy = docs["config:redis.conf:maxmemory-policy"].text
    assert policy == (
        "maxmemory-policy noeviction\n\n"
        "MAXMEMORY POLICY: how Redis will select what to remove.\n\n"
        "volatile-lru -> Evict using approximated LRU.\nnoeviction -> Don't evict anything.\n\n"
        "The default is:\n\n"
        "```\nmaxmemory-policy noeviction\n```\n\n"
        "Default: noeviction\n"
        "Section: MEMORY MANAGEMENT"
    )
    # a commented-out line is no default when the file does not say so
    assert "Default:" not in docs["config:redis.conf:maxmemory"].text
    assert (
        "Default:"
        not in read("10-master.conf", DOVECOT)["config:10-master.conf:default_vsz_limit"].text
    )
    # trailing comments that say it
    conf = "#ssl = yes  # default\n#mode = x  # defaults to 0600\n#user = x\n"
    docs = read("a.conf", "# Head.\n\n" + conf)
    assert docs["config:a.conf:ssl"].text == "ssl = yes\n\nDefault: yes"
    assert docs["config:a.conf:mode"].text == "mode = x\n\ndefaults to 0600\n\nDefault: 0600"
    assert "config:a.conf:user" not in docs  # no documentation, no document
    said = "# Username to log in as (default: email)\n#username = email\n"
    assert read("b.conf", said)["config:b.conf:username"].text.endswith("Default: email")


PG = """\
# -----------------------------
# PostgreSQL configuration file
# -----------------------------
#
# The commented-out settings shown in this file represent the default values.

#------------------------------------------------------------------------------
# CONNECTIONS AND AUTHENTICATION
#------------------------------------------------------------------------------

# - Connection Settings -

#listen_addresses = 'localhost'		# what IP address(es) to listen on;
					# comma-separated list of addresses;
					# (change requires restart)
#port = 5432				# (change requires restart)
#bonjour = off

# - Memory -

#max_prepared_transactions = 0		# zero disables the feature
# Caution: it is not advisable to set max_prepared_transactions nonzero unless
# you actively intend to use prepared transactions.
#work_mem = 4MB				# min 64kB
"""


def test_trailing_comments_document_their_line() -> None:
    docs = read("postgresql.conf.sample", PG)
    assert docs["config:postgresql.conf.sample:listen_addresses"].text == (
        "listen_addresses = 'localhost'\n\n"
        "what IP address(es) to listen on; comma-separated list of addresses;\n\n"
        "Default: 'localhost'\n"
        "Change requires restart.\n"
        "Section: CONNECTIONS AND AUTHENTICATION > Connection Settings"
    )
    assert docs["config:postgresql.conf.sample:port"].text == (
        "port = 5432\n\nDefault: 5432\nChange requires restart.\n"
        "Section: CONNECTIONS AND AUTHENTICATION > Connection Settings"
    )
    assert "config:postgresql.conf.sample:bonjour" not in docs  # nothing says what it is
    # prose naming the previous setting, above one with its own comment, is the previous'
    assert docs["config:postgresql.conf.sample:max_prepared_transactions"].text == (
        "max_prepared_transactions = 0\n\n"
        "zero disables the feature\n\n"
        "Caution: it is not advisable to set max_prepared_transactions nonzero unless you "
        "actively intend to use prepared transactions.\n\n"
        "Default: 0\n"
        "Section: CONNECTIONS AND AUTHENTICATION > Memory"
    )
    assert docs["config:postgresql.conf.sample:work_mem"].text == (
        "work_mem = 4MB\n\nmin 64kB\n\nDefault: 4MB\n"
        "Section: CONNECTIONS AND AUTHENTICATION > Memory"
    )


PHP = """\
[PHP]

;;;;;;;;;;;;;;;;;;;
; About php.ini   ;
;;;;;;;;;;;;;;;;;;;
; PHP's initialization file is responsible for configuring PHP.

; Directives are specified using the following syntax:
; directive = value
; Directive names are *case sensitive*.

;;;;;;;;;;;;;;;;;;;;
; Language Options ;
;;;;;;;;;;;;;;;;;;;;

; This directive determines whether PHP will recognize <? tags.
; Default Value: On
; Development Value: Off
; Production Value: Off
; https://php.net/short-open-tag
short_open_tag = Off

; https://php.net/precision
precision = 14

; Maximum amount of memory a script may consume
;memory_limit = 128M
;max_input_time = 60
;max_input_vars = 1000

[Session]
; Handler used to store/retrieve data.
; https://php.net/session.save-handler
session.save_handler = files

[sshd]
; Whether the jail is on.
enabled = true

[apache-auth]
; Whether this jail is on.
enabled = false
"""


def test_php_ini_facts_sections_and_names() -> None:
    docs = read("php.ini-production", PHP)
    assert docs["config:php.ini-production:short_open_tag"].text == (
        "short_open_tag = Off\n\n"
        "This directive determines whether PHP will recognize <? tags.\n\n"
        "Default: On\nDevelopment Value: Off\nProduction Value: Off\n"
        "Reference: https://php.net/short-open-tag\n"
        "Section: Language Options"
    )
    assert "config:php.ini-production:precision" not in docs  # a link alone says nothing
    # an INI section names a key only when the key is found under two of them
    assert docs["config:php.ini-production:session.save_handler"].text == (
        "session.save_handler = files\n\n"
        "Handler used to store/retrieve data.\n\n"
        "Reference: https://php.net/session.save-handler\n"
        "Section: [Session]"
    )
    assert docs["config:php.ini-production:sshd.enabled"].text == (
        "enabled = true\n\nWhether the jail is on.\n\nSection: [sshd]"
    )
    assert docs["config:php.ini-production:apache-auth.enabled"].meta["line"] == 42
    assert "config:php.ini-production:directive" not in docs  # `; key = value` in prose
    assert "config:php.ini-production:Session.session.save_handler" not in docs


DOVECOT = """\
##
## Master configuration
##

# Default VSZ limit for service processes.
#default_vsz_limit = 256M

service imap-login {
  inet_listener imap {
    #port = 143
  }

  # Number of connections to handle before starting a new process.
  #service_count = 1
}

service imap {
  # Max. number of IMAP processes (connections)
  #process_limit = 1024
}

service pop3 {
  # Max. number of POP3 processes (connections)
  #process_limit = 1024
}

# Postfix smtp-auth
#unix_listener /var/spool/postfix/private/auth {
#  mode = 0666
#}
"""


def test_blocks_qualify_a_key_found_in_several() -> None:
    docs = read("10-master.conf", DOVECOT)
    assert sorted(docs) == [
        "config:10-master.conf",
        "config:10-master.conf:default_vsz_limit",
        "config:10-master.conf:service[imap].process_limit",
        "config:10-master.conf:service[pop3].process_limit",
        "config:10-master.conf:service_count",
        "config:10-master.conf:unix_listener[/var/spool/postfix/private/auth]",
    ]
    assert docs["config:10-master.conf:service[imap].process_limit"].text == (
        "process_limit = 1024\n\nMax. number of IMAP processes (connections)"
    )
    section = docs["config:10-master.conf:unix_listener[/var/spool/postfix/private/auth]"]
    assert section.meta["kind"] == "section"
    assert section.text == (
        "unix_listener /var/spool/postfix/private/auth {\n  mode = 0666\n}\n\nPostfix smtp-auth"
    )
    file = docs["config:10-master.conf"]
    assert file.meta["kind"] == "file"
    assert file.text == (
        "10-master.conf\n\nMaster configuration\n\nSettings:\n"
        "- `default_vsz_limit`: Default VSZ limit for service processes.\n"
        "- `service_count`: Number of connections to handle before starting a new process.\n"
        "- `service[imap].process_limit`: Max. number of IMAP processes (connections)\n"
        "- `service[pop3].process_limit`: Max. number of POP3 processes (connections)\n"
        "- `unix_listener[/var/spool/postfix/private/auth]`: Postfix smtp-auth"
    )


APACHE = """\
# Apache-like blocks.

<Directory /var/www>
    # Whether .htaccess files may override settings here.
    AllowOverride None
</Directory>

<Directory /srv>
    # Overrides allowed under /srv.
    AllowOverride All
</Directory>
"""


def test_apache_blocks() -> None:
    docs = read("httpd.conf", APACHE)
    assert docs["config:httpd.conf:Directory[/srv].AllowOverride"].text == (
        "AllowOverride All\n\nOverrides allowed under /srv."
    )
    assert "config:httpd.conf:Directory[/var/www].AllowOverride" in docs


ALACRITTY = """\
# Configuration for Alacritty, the GPU enhanced terminal emulator.

#window:
  # Window padding (changes require restart)
  #
  # Blank space added around the window in pixels.
  #padding:
  #  x: 0
  #  y: 0

  # Spread additional padding evenly around the terminal content.
  #dynamic_padding: false

  # Window decorations
  #
  # Values for `decorations`:
  #     - full: Borders and title bar
  #     - none: Neither borders nor title bar
  #decorations: full

# Live config reload (changes require restart)
live_config_reload: true  # reloads on save
"""


def test_yaml_nesting_names_the_setting() -> None:
    docs = read("alacritty.yml", ALACRITTY)
    assert sorted(docs) == [
        "config:alacritty.yml",
        "config:alacritty.yml:live_config_reload",
        "config:alacritty.yml:window.decorations",
        "config:alacritty.yml:window.dynamic_padding",
        "config:alacritty.yml:window.padding",
    ]
    padding = docs["config:alacritty.yml:window.padding"]
    assert padding.meta["kind"] == "section" and padding.meta["signature"] == "window.padding:"
    assert padding.text == (
        "window.padding:\n  x: 0\n  y: 0\n\n"
        "Window padding (changes require restart)\n\n"
        "Blank space added around the window in pixels."
    )
    assert docs["config:alacritty.yml:window.decorations"].text == (
        "window.decorations: full\n\nWindow decorations\n\nValues for `decorations`:\n\n"
        "- full: Borders and title bar\n- none: Neither borders nor title bar"
    )
    assert docs["config:alacritty.yml:live_config_reload"].text == (
        "live_config_reload: true\n\nLive config reload (changes require restart)\n\n"
        "reloads on save"
    )


TOML = """\
# Example tool configuration.

# The address the server listens on, as host:port.
listen = "127.0.0.1:8080"

[server]
# Seconds before an idle connection is closed.
timeout = 30

[client]
# Seconds before a request is abandoned.
timeout = 10

[[plugins]]
# The plugin's name, as registered.
name = "x"
"""


def test_toml_tables_always_name_their_keys() -> None:
    docs = read("tool.toml", TOML)
    assert sorted(docs) == [
        "config:tool.toml",
        "config:tool.toml:client.timeout",
        "config:tool.toml:listen",
        "config:tool.toml:plugins.name",
        "config:tool.toml:server.timeout",
    ]
    assert docs["config:tool.toml:server.timeout"].text == (
        "server.timeout = 30\n\nSeconds before an idle connection is closed.\n\nSection: [server]"
    )


SQUID = """\
#	WELCOME TO SQUID 5.7
#	----------------------------
#
#	This is the documentation for the Squid configuration file.
#

#  TAG: broken_vary_encoding
#	This option is not yet supported by Squid-3.
#Default:
# none

# MEMORY CACHE OPTIONS
# -----------------------------------------------------------------------------

#  TAG: cache_mem	(bytes)
#	'cache_mem' specifies the ideal amount of memory to be used
#	for:
#		* In-Transit objects
#		* Hot Objects
#
#	Example:
#		cache_mem 512 MB
#Default:
# cache_mem 256 MB

#  TAG: http_access
#	Allowing or Denying access based on defined access lists.
#Default:
# Deny, unless rules exist in squid.conf.
#

#
# Recommended minimum Access Permission configuration:
#
# Deny requests to certain unsafe ports
http_access deny !Safe_ports
http_access deny all
"""


def test_squid_tags() -> None:
    docs = read("squid.conf", SQUID)
    assert sorted(docs) == [
        "config:squid.conf",
        "config:squid.conf:broken_vary_encoding",
        "config:squid.conf:cache_mem",
        "config:squid.conf:http_access",
    ]
    mem = docs["config:squid.conf:cache_mem"]
    assert mem.meta["signature"] == "cache_mem (bytes)" and mem.meta["line"] == 15
    assert mem.text == (
        "cache_mem (bytes)\n\n"
        "'cache_mem' specifies the ideal amount of memory to be used for:\n\n"
        "* In-Transit objects\n* Hot Objects\n\n"
        "Example:\n\n```\ncache_mem 512 MB\n```\n\n"
        "Default: 256 MB\n"
        "Section: MEMORY CACHE OPTIONS"
    )
    assert docs["config:squid.conf:http_access"].text == (
        "http_access\n\n"
        "Allowing or Denying access based on defined access lists.\n\n"
        "Default: Deny, unless rules exist in squid.conf.\n"
        "Section: MEMORY CACHE OPTIONS\n\n"
        "Set in this file:\n```\n"
        "# Recommended minimum Access Permission configuration:\n"
        "# Deny requests to certain unsafe ports\n"
        "http_access deny !Safe_ports\n"
        "http_access deny all\n```"
    )
    # the heading above all prose is the file's title, no section
    assert docs["config:squid.conf:broken_vary_encoding"].text == (
        "broken_vary_encoding\n\nThis option is not yet supported by Squid-3.\n\nDefault: none"
    )


SSHD = """\
# This is the sshd server system-wide configuration file.

# The strategy used for options in the default sshd_config shipped with
# OpenSSH is to specify options with their default value where
# possible, but leave them commented.

Include /etc/ssh/sshd_config.d/*.conf

#Port 22

# Logging
#SyslogFacility AUTH
#LogLevel INFO

# To disable tunneled clear text passwords, change to no here!
#PasswordAuthentication yes

# Example of overriding settings on a per-user basis
#Match User anoncvs
#	X11Forwarding no
#	ForceCommand cvs server
"""


def test_group_labels_document_nobody_and_ssh_match_is_a_section() -> None:
    docs = read("sshd_config", SSHD)
    assert sorted(docs) == [
        "config:sshd_config",
        "config:sshd_config:Match[User anoncvs]",
        "config:sshd_config:PasswordAuthentication",
    ]
    # the opening says the commented-out values are the defaults
    assert docs["config:sshd_config:PasswordAuthentication"].text == (
        "PasswordAuthentication yes\n\n"
        "To disable tunneled clear text passwords, change to no here!\n\n"
        "Default: yes"
    )
    assert docs["config:sshd_config:Match[User anoncvs]"].text == (
        "Match User anoncvs\n       X11Forwarding no\n       ForceCommand cvs server\n\n"
        "Example of overriding settings on a per-user basis"
    )


POSTFIX = """\
# Global Postfix configuration file.

# SENDING MAIL
#
# The myorigin parameter specifies the domain that locally-posted
# mail appears to come from.
#
#myorigin = /etc/mailname
#myorigin = $myhostname
#myorigin = $mydomain

# The mydestination parameter specifies the list of domains.
#
#mydestination = $myhostname, localhost.$mydomain,
#	mail.$mydomain
mydestination = $myhostname, localhost

# readme_directory: The location of the Postfix README files.
#
readme_directory = no
inet_protocols = ipv4
"""


def test_a_lead_that_names_its_setting_keeps_to_it() -> None:
    docs = read("main.cf", POSTFIX)
    assert "config:main.cf:inet_protocols" not in docs
    assert docs["config:main.cf:readme_directory"].text == (
        "readme_directory = no\n\n"
        "readme_directory: The location of the Postfix README files.\n\n"
        "Section: SENDING MAIL"
    )


def test_prose_is_cleaned() -> None:
    text = """\
# Heading prose.

# The following option sets the timeout for:
#
# 1) Bulk transfer I/O during SYNC, from the point of view of
#    replica.
# 2) Master timeout.
#
# Options:
#   no         - Never perform it
#   yes        - Always perform it
#
# NOTE 1: PHP will not create this directory.
#         Use the script for that purpose.
# NOTE 2: See the section below.
#
# An example:
#
#   +------+      +------+
#   | main | ---> | copy |
#   +------+      +------+
#
# -----------------------------------------------------------------
# https://example.org/timeout
repl-timeout 60
"""
    doc = read("a.conf", text)["config:a.conf:repl-timeout"]
    assert doc.text == (
        "repl-timeout 60\n\n"
        "The following option sets the timeout for:\n\n"
        "1) Bulk transfer I/O during SYNC, from the point of view of replica.\n"
        "2) Master timeout.\n\n"
        "Options:\n\n"
        "no - Never perform it\nyes - Always perform it\n\n"
        "NOTE 1: PHP will not create this directory. Use the script for that purpose.\n\n"
        "NOTE 2: See the section below.\n\n"
        "An example:\n\n"
        "```\n+------+      +------+\n| main | ---> | copy |\n+------+      +------+\n```\n\n"
        "Reference: https://example.org/timeout"
    )


def test_file_document_opening_and_settings() -> None:
    text = (
        "# Copyright 2020 Example Corp. All rights reserved.\n#\n"
        "# The example daemon's configuration.\n#\n# Each line sets one option.\n\n"
        + "".join(f"# Option {i} does thing {i}. More.\nopt{i} {i}\n\n" for i in range(105))
    )
    docs = read("x.conf", text)
    file = docs["config:x.conf"]
    lines = file.text.split("\n")
    assert lines[:5] == ["x.conf", "", "The example daemon's configuration.", "",
                         "Each line sets one option."]  # fmt: skip
    assert lines[6:8] == ["Settings:", "- `opt0`: Option 0 does thing 0."]
    assert lines[-1] == "… and 5 more." and len(lines) == 6 + 1 + 100 + 1
    assert file.meta["signature"] == "x.conf" and file.meta["line"] == 1
    assert len(docs) == 106


def test_rejects_and_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    rejects = CollectResult()
    files = [
        SourceFile(P("plain.conf"), "p", "#key = value\nother = 1\n", {}),
        SourceFile(P("compose.yml"), "c", "services:\n  web:\n    image: nginx\n", {}),
        SourceFile(P("bin.conf"), "b", "a\x00b", {}),
        SourceFile(P("huge.conf"), "h", "# x\n" * 1_300_000, {}),
    ]
    assert api_documents(files, "local", rejects) == []
    assert rejects.rejects == {CONFIG_NO_API: 1, CONFIG_NOT_ANNOTATED: 1, CONFIG_SKIPPED: 2}
    assert rejects.samples[CONFIG_SKIPPED] == ["b", "h"]
    for reason in (CONFIG_NO_API, CONFIG_NOT_ANNOTATED, CONFIG_SKIPPED, CONFIG_CUT):
        assert "config: text" in FIXES[reason]
    monkeypatch.setattr(confdoc, "MAX_DOCUMENTS", 3)
    rejects = CollectResult()
    docs = read("redis.conf", REDIS, rejects)
    assert len(docs) == 3 and rejects.rejects == {CONFIG_CUT: 1}
    assert "config:redis.conf" in docs  # the file's own document first, then by line


def test_long_lines_and_odd_text_do_not_break_it() -> None:
    long = "# " + "word " * 5000 + "\nkey " + "v" * 20000 + "\n"
    doc = read("l.conf", long)["config:l.conf:key"]
    assert len(doc.meta["signature"]) == 200 and len(doc.text) < 40_000
    odd = "}\n</x>\n[\n#\n  - a\n<D x>\n# - X -\n'\n{\n\r\n"
    assert read("o.conf", odd) == {}


def test_deterministic_and_fast() -> None:
    big = "".join(
        f"# Setting {i} controls the {i}th thing of the server.\n#\n# set{i} {i}\n\n"
        for i in range(3000)
    )
    start = time.process_time()  # this process's CPU: other tests' load aside
    first = read("big.conf", big)
    assert time.process_time() - start < 5
    assert len(first) == 3001
    again = read("big.conf", big)
    assert [(d.uri, d.text, d.meta) for d in first.values()] == [
        (d.uri, d.text, d.meta) for d in again.values()
    ]


def test_a_folder_of_configuration_files_is_read_by_init_and_asked_as_settings(
    tmp_path: Path,
) -> None:

    from apitree import asked, write_tree
    from jupiter.collect.local import collect_local
    from jupiter.config import DomainConfig
    from jupiter.config.cli import source_entry

    server = (
        "# Cache server configuration.\n\n"
        "# The TCP port the server listens on for client connections.\n"
        "# Default: 7000\n#port 7000\n\n"
        "# How long, in seconds, an idle client connection is kept open before\n"
        "# the server closes it.\n#idle-timeout 300\n\n"
        "# The largest value a client may store, in bytes.\nmax-value-size 1048576\n\n"
        "# The address the server binds to; every interface when left out.\n#bind 127.0.0.1\n"
    )
    theme = (
        "# The font family used for every pane of the window.\n#font: Mono\n\n"
        "# The number of lines kept when text scrolls out of view.\n#history: 1000\n\n"
        "# Whether the cursor blinks while the window has focus.\n#blink: true\n"
    )
    write_tree(
        tmp_path / "etc",
        {
            "server.conf": server,
            "theme.yml": theme,
            "ci.yml": "jobs:\n  test:\n    runs-on: linux\n",  # no comments: not a config's
        },
    )
    entry = source_entry(str(tmp_path / "etc"))
    assert entry["include"][-2:] == ["*.conf", "theme.yml"]  # type: ignore[index]
    cfg = DomainConfig.model_validate({"name": "t", "sources": [entry]})
    cfg.base_dir = tmp_path
    docs = {d.uri: d for d in collect_local(cfg.sources[0], cfg, CollectResult())}  # type: ignore[arg-type]
    assert sorted(docs) == [
        "config:server.conf",
        "config:server.conf:bind",
        "config:server.conf:idle-timeout",
        "config:server.conf:max-value-size",
        "config:server.conf:port",
        "config:theme.yml",  # its settings listed
        "config:theme.yml:blink",
        "config:theme.yml:font",
        "config:theme.yml:history",
    ]

    port = asked(docs["config:server.conf:port"])
    assert sorted(port.values()) == [
        "The TCP port the server listens on for client connections.",
        "`7000`",
    ]
    assert any("`port`" in q and "`server.conf`" in q for q in port)  # asked of its file
    # no default stated, so none asked; a setting returns nothing
    assert list(asked(docs["config:server.conf:idle-timeout"]).values()) == [
        "How long, in seconds, an idle client connection is kept open before the server closes it."
    ]
    # one configuration file named on the command line is read whatever its name
    single = source_entry(str(tmp_path / "etc" / "server.conf"))
    assert single["include"][-1] == "server.conf"  # type: ignore[index]


def test_commented_out_tag_blocks_and_boxed_comments() -> None:
    """collectd's and Apache's commented-out `#<Plugin x>` ... `#</Plugin>` blocks close
    where their end tag stands (a setting after one is no longer inside it), a line
    commented out twice inside one is neither prose nor a heading, and a boxed comment's
    right edge is no text."""
    text = (
        "#----------------------------------------------------------#\n"
        "# When enabled, internal statistics are collected, using    #\n"
        "# the daemon's own name.                                     #\n"
        "#----------------------------------------------------------#\n"
        "#CollectInternalStats false\n\n"
        '#<Plugin ipmi>\n#\t<Instance "remote">\n#\t\tHost "server.example.com"\n'
        '#\t\t#AuthType "md5"\n#\t\tIgnoreSelected false\n#\t</Instance>\n#</Plugin>\n\n'
        "# Include the snippets of every enabled module.\nIncludeOptional mods/*.conf\n\n"
        "# The interval at which values are read, in seconds.\n#ReadInterval 10\n"
    )
    docs = {d.uri: d for d in api_documents([SourceFile(P("daemon.conf"), "d", text)], "local")}
    assert sorted(docs) == [
        "config:daemon.conf",
        "config:daemon.conf:CollectInternalStats",
        "config:daemon.conf:IncludeOptional",
        "config:daemon.conf:ReadInterval",
    ]
    assert docs["config:daemon.conf:CollectInternalStats"].text == (
        "CollectInternalStats false\n\nWhen enabled, internal statistics are collected, "
        "using the daemon's own name."
    )
    assert docs["config:daemon.conf:IncludeOptional"].text == (
        "IncludeOptional mods/*.conf\n\nInclude the snippets of every enabled module."
    )


def test_no_difference_question_pairs_a_setting_with_its_file_or_a_sibling() -> None:
    """Two settings of one file (`add-user-script`, `add-group-script`) or a file and its
    setting are no alternatives to choose between: the difference template pairs none."""
    import random

    from jupiter.records import Chunk
    from jupiter.synth.questions import Catalog, make_questions

    text = (
        "# Sample configuration of the file server, with every option it reads.\n\n"
        "# The script run to create a user account on the domain controller.\n"
        "#add-user-script /usr/sbin/useradd %u\n\n"
        "# The script run to create a group of users on the domain controller.\n"
        "#add-group-script /usr/sbin/groupadd %g\n\n"
        "# The script run to delete a user account from the domain controller.\n"
        "#delete-user-script /usr/sbin/userdel %u\n"
    )
    docs = api_documents([SourceFile(P("files.conf"), "f", text)], "local")
    assert len(docs) == 4
    chunks = [Chunk(d.id, d.source, d.uri, d.title, 0, len(d.text), d.text) for d in docs]
    catalog = Catalog(chunks)
    for c in chunks:
        assert make_questions(c, ["difference"], 3, random.Random(0), catalog) == []
    assert catalog.partner("files.conf:add-user-script") is None
