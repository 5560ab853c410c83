"""core.plugins: every entry point of a group is loaded on its own, and one
that fails (to import, or to install) is logged and skipped."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

from core.plugins import PluginRefused, load_group


def entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group="weir.tests")


def test_each_plugin_is_handed_to_install_by_its_name():
    installed = {}

    report = load_group(
        "weir.tests",
        installed.__setitem__,
        found=[entry("dumps", "json:dumps"), entry("sqrt", "math:sqrt")],
    )

    assert report.loaded == ["dumps", "sqrt"]
    assert installed["sqrt"](9) == 3
    assert report.skipped == []


def test_a_missing_module_or_attribute_skips_that_plugin_alone(caplog):
    installed = {}
    found = [
        entry("gone", "weir_no_such_plugin:Thing"),
        entry("typo", "json:dumpz"),
        entry("dumps", "json:dumps"),
    ]

    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_group("weir.tests", installed.__setitem__, found=found)

    assert report.loaded == ["dumps"]
    assert [(s.name, s.reason.split(":")[0]) for s in report.skipped] == [
        ("gone", "ModuleNotFoundError"),
        ("typo", "AttributeError"),
    ]
    assert (
        "Plugin gone (weir.tests, weir_no_such_plugin:Thing) skipped: "
        in (caplog.messages[0])
    )


def test_an_install_that_refuses_raises_or_exits_skips_the_plugin(caplog):
    def install(name, loaded):
        if name == "refused":
            raise PluginRefused("the name is taken")
        if name == "crashes":
            raise ValueError("bad form field")
        if name == "exits":
            raise SystemExit("goodbye")

    found = [
        entry("refused", "json:dumps"),
        entry("crashes", "json:loads"),
        entry("exits", "json:load"),
    ]
    with caplog.at_level(logging.ERROR, logger="weir.plugins"):
        report = load_group("weir.tests", install, found=found)

    assert report.loaded == []
    assert [s.reason for s in report.skipped] == [
        "refused: the name is taken",
        "ValueError: bad form field",
        "SystemExit: goodbye",
    ]
    refused, crashed, exited = caplog.records
    assert not refused.exc_info  # a refusal is no bug: no traceback
    assert crashed.exc_info[0] is ValueError
    assert exited.exc_info[0] is SystemExit
