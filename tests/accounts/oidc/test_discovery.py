"""The provider's endpoints come from its discovery document, checked and
kept per process."""

from __future__ import annotations

from accounts.oidc import discovery
from tests.accounts.oidc.conftest import signed_in_user
from tests.factories import UserFactory


def test_the_document_is_read_once_for_many_sign_ins(sso, visitor):
    discovery._documents.clear()

    for _ in range(3):
        assert visitor.get("/login/oidc/").status_code == 302

    assert sso.discovery_requests == 1


def test_a_document_naming_another_issuer_is_refused(sso, visitor):
    sso.discovery_extra = {"issuer": "https://evil.example"}

    answer = visitor.get("/login/oidc/")

    assert answer.status_code == 502
    assert b"provider_unavailable" in answer.content


def test_a_document_without_endpoints_is_refused(sso, visitor):
    sso.discovery_extra = {"token_endpoint": None}

    answer = visitor.get("/login/oidc/")

    assert answer.status_code == 502


def test_rs256_is_chosen_when_the_provider_offers_it(sso):
    sso.discovery_extra = {"id_token_signing_alg_values_supported": ["ES256", "RS256"]}

    assert discovery.signing_algorithm() == "RS256"


def test_the_providers_only_algorithm_is_used_otherwise(sso):
    sso.discovery_extra = {"id_token_signing_alg_values_supported": ["ES256"]}

    assert discovery.signing_algorithm() == "ES256"


def test_a_provider_without_userinfo_signs_in_from_the_id_tokens_claims(
    sso, sign_in_with, visitor
):
    UserFactory(username="ada", email="ada@example.com")
    sso.discovery_extra = {"userinfo_endpoint": None}
    sso.add_person("ada")

    answer = sign_in_with("ada")

    assert answer.status_code == 302
    assert signed_in_user(visitor) == "ada"
