def test_flow_list_is_an_array_of_the_callers_flows(api, alice_flow, bob_flow):
    response = api.get("/api/flows")

    assert response.status_code == 200
    assert [flow["id"] for flow in response.json()] == [str(alice_flow.id)]
