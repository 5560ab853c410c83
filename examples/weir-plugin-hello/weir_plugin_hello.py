"""A Weir plugin: the `hello` node kind greets someone, and the `hello_token`
credential kind signs HTTP requests with X-Hello-Token (docs/plugins.md)."""

from flows.credentials.kinds import CredentialKind, Header, KindField
from flows.nodes import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.checks import text

HELLO_TOKEN = CredentialKind(
    "hello_token",
    "Hello token",
    (KindField("token", "Token", secret=True),),
    sign=Header("token", name="X-Hello-Token"),
    docs="A token sent as the X-Hello-Token header.",
)


class HelloNode(NodeKind):
    type = "hello"
    label = "Hello"
    description = "Greets someone: {greeting}, {name}!"
    form_fields = (
        FormField("data.greeting", "Greeting", help="Hello, Bonjour, Hoi..."),
        FormField("data.name", "Name", help="Templates allowed: {{ input.name }}"),
    )
    default_data = {"greeting": "Hello", "name": "{{ input.name }}"}

    def validate_data(self, data: dict) -> list[FieldError]:
        """Checked when the flow is saved; each error lands beside its input."""
        return text(data, "greeting", max_length=100) + text(data, "name")

    def run(self, data: dict, ctx: NodeContext) -> dict:
        name = ctx.render(data["name"])
        return {"message": f"{data['greeting']}, {name}!"}
