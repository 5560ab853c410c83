from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Agents"

    def ready(self):
        """Plug agents into flows: the `agent` node kind and the demo agent.

        Flows never imports agents; it offers registries and agents fills them
        here, as NetBox plugins do.
        """
        from agents.demo import seed_demo_agent
        from agents.nodes import AgentNode
        from flows import demo
        from flows.nodes import register

        register(AgentNode())
        demo.register_seed_hook(seed_demo_agent)
