from accounts.audit.changes import Change, readable_changes


def test_a_from_to_pair_is_named_after_what_changed():
    rows = readable_changes({"from": 1, "to": 2, "source": "builder"}, "flow")

    assert rows == [Change("version", "1", "2"), Change("source", None, "builder")]


def test_a_field_beside_its_before_value_is_one_row():
    rows = readable_changes({"status": "cancelled", "status_before": "running"})

    assert rows == [Change("status", "running", "cancelled")]


def test_plain_facts_read_as_words_not_json():
    rows = readable_changes({"fields": ["name", "host"], "secret_changed": True})

    assert rows == [
        Change("fields", None, "name, host"),
        Change("secret changed", None, "yes"),
    ]


def test_a_field_holding_its_own_pair_and_no_changes_at_all():
    assert readable_changes({"role": {"from": "viewer", "to": "editor"}}) == [
        Change("role", "viewer", "editor")
    ]
    assert readable_changes({}) == []
