"""A small, safe Markdown for chat, forms and approvals: escaped, then sanitised by nh3.

Supports what models use most: paragraphs, line breaks, `- ` lists, **bold**,
*italic*, `inline code`, fenced code blocks and [links](https://...). Everything
is HTML-escaped before any tag is added, and nh3 (an allowlist sanitiser) then
drops whatever is not on the list, so model or user text can never inject markup.
"""

from __future__ import annotations

import html
import re

import nh3

ALLOWED_TAGS = {"p", "br", "strong", "em", "code", "pre", "a", "ul", "li"}
ALLOWED_ATTRIBUTES = {"a": {"href"}}
URL_SCHEMES = {"http", "https", "mailto"}

FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
BOLD = re.compile(r"\*\*(.+?)\*\*")
# Neither form's text may hold its own delimiter: with `.+?` an opener that
# cannot close scanned to the line's end, from every opener, and a 32,000
# character line of ` *a` or `[[[…](http://xxx…` took seconds in `re`, which
# holds the GIL (tests/agents/public/test_markdown_cost.py). So a match stops
# at the next `*` (italic) or `[` (link), and the work grows with the text.
ITALIC = re.compile(r"(?<![*\w])\*(?!\s)([^*]+?)(?<!\s)\*(?![*\w])")
LIST_ITEM = re.compile(r"^\s*[-*] ")
# Inline code is set aside as NUL<n>NUL while the other inline forms apply.
PLACEHOLDER_MARK = "\x00"
PLACEHOLDER = re.compile(f"{PLACEHOLDER_MARK}(\\d+){PLACEHOLDER_MARK}")
LINK = re.compile(r"\[([^\[\]\n]+)\]\(((?:https?://|mailto:)[^\s)\[\]]+)\)")


def render_markdown(text: str) -> str:
    """Chat text as sanitised HTML.

    NUL marks inline-code placeholders (`_inline`), so NUL in the text itself
    becomes U+FFFD first: text can then never pose as a placeholder.
    """
    text = text.replace(PLACEHOLDER_MARK, "\ufffd")
    parts, position = [], 0
    for match in FENCE.finditer(text):
        parts.append(_blocks(text[position : match.start()]))
        parts.append(f"<pre><code>{html.escape(match.group(1))}</code></pre>")
        position = match.end()
    parts.append(_blocks(text[position:]))
    return nh3.clean(
        "".join(parts),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )


def _blocks(text: str) -> str:
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        if not block.strip():
            continue
        lines = block.splitlines()
        if all(LIST_ITEM.match(line) for line in lines):
            items = "".join(
                f"<li>{_inline(LIST_ITEM.sub('', line))}</li>" for line in lines
            )
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{'<br>'.join(_inline(line) for line in lines)}</p>")
    return "".join(out)


def _inline(line: str) -> str:
    codes: list[str] = []

    def keep_code(match: re.Match) -> str:
        codes.append(f"<code>{html.escape(match.group(1))}</code>")
        return f"{PLACEHOLDER_MARK}{len(codes) - 1}{PLACEHOLDER_MARK}"

    line = INLINE_CODE.sub(keep_code, line)
    line = html.escape(line)
    line = LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', line)
    line = BOLD.sub(r"<strong>\1</strong>", line)
    line = ITALIC.sub(r"<em>\1</em>", line)
    return PLACEHOLDER.sub(lambda m: codes[int(m.group(1))], line)
