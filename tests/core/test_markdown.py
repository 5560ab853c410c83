"""Chat messages as HTML: a little Markdown, and never markup from the text itself."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from core.markdown import render_markdown


def test_it_renders_the_simple_markdown_models_use():
    html = render_markdown("Hi **there**, *you*.\nUse `ls -l`.\n\n- one\n- two")

    assert html == (
        "<p>Hi <strong>there</strong>, <em>you</em>.<br>Use <code>ls -l</code>.</p>"
        "<ul><li>one</li><li>two</li></ul>"
    )


def test_fenced_code_is_escaped_verbatim():
    html = render_markdown("```html\n<b>x</b> **no**\n```")

    assert html == "<pre><code>&lt;b&gt;x&lt;/b&gt; **no**\n</code></pre>"


def test_links_to_http_get_safe_rel_attributes():
    html = render_markdown("[docs](https://example.com/a?b=1&c=2)")

    assert html == (
        '<p><a href="https://example.com/a?b=1&amp;c=2" '
        'rel="noopener noreferrer nofollow">docs</a></p>'
    )


@pytest.mark.parametrize(
    "attack",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        '[x](https://e.com/" onmouseover="alert(1))',
        "`</code><script>alert(1)</script>`",
        "**<iframe src=//evil>**",
    ],
)
def test_markup_in_the_text_never_becomes_html(attack):
    tags = Tags()
    tags.feed(render_markdown(attack))

    for tag, attributes in tags.seen:
        assert tag in {"p", "br", "strong", "em", "code", "pre", "a", "ul", "li"}
        assert set(attributes) <= {"href", "rel"}
        assert attributes.get("href", "https://").startswith("https://")


class Tags(HTMLParser):
    """Every start tag with its attributes, as a browser would parse them."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, dict(attrs)))


@pytest.mark.parametrize(
    "text",
    [
        "code \x000\x00 here",
        "use `ls` then \x000\x00 and \x001\x00",
        "\x00\x00\x00",
        "`a` \x009999999999\x00",
    ],
)
def test_nul_and_placeholder_lookalikes_render_as_text(text):
    html = render_markdown(text)

    assert "\x00" not in html
    assert html.count("<code>") == text.count("`") // 2
    assert "\ufffd" in html


def test_a_placeholder_lookalike_does_not_copy_inline_code():
    html = render_markdown("`secret` and \x000\x00")

    assert html == "<p><code>secret</code> and \ufffd0\ufffd</p>"
