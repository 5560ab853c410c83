"""One chat turn: the model calls and tool runs for one user message.

`agents.chat.start_turn` makes a `Turn` (the message stored, nothing called
yet) and `send_message` runs it; `agents.resume` makes one again when a person
decides a held tool call. The tool loop lets the model make at most
AGENT_MAX_TOOL_STEPS tool calls per message (calls beyond that are answered
with a `too_many_tool_calls` error and run nothing); once they are spent, the
next model call still describes the tools but forbids calls. Tools that ask
first end the turn until a person decides (agents/approval.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from decimal import Decimal

from django.conf import settings
from django.db import transaction

from accounts.workspaces.access import can
from accounts.workspaces.roles import RUNS_DATA
from agents import metrics
from agents.approval import ask_first
from agents.context import fit
from agents.models import Agent, Conversation, Message
from agents.output import parse_reply
from agents.pricing import check_day_budget, check_turn_budget, cut_short, price
from agents.providers import (
    ChatRequest,
    ProviderError,
    ProviderNotConfigured,
    ProviderTimeout,
    TextDelta,
    ToolCall,
    provider_for,
)
from agents.replies import ChatCancelled, ChatFailed, ChatReply
from agents.server_key import server_key_refusal
from agents.tools import Toolbox, refusal
from core.redact import Redactor
from core.storable import storable_text, storable_value


class Turn:
    """One user message's worth of model calls and tool runs."""

    def __init__(
        self,
        agent: Agent,
        conversation: Conversation,
        user,
        *,
        depth: int,
        deadline: float | None,
        hops: int = 0,
        api_key: str | None = None,
        emit: Callable[[str, dict], None] | None = None,
        user_message: Message | None = None,
        can_approve: bool = False,
        history: list[dict] | None = None,
    ):
        self.agent = agent
        self.emit = emit or (lambda event, data: None)
        self.user_message = user_message
        # Set from another thread when the caller goes away (the streamed chat).
        self.cancelled = threading.Event()
        # Set once the user's message is stored (`store_message`): the streamed
        # chat stores it while this turn's first model call is on its way, and
        # the turn writes nothing before.
        self.stored = threading.Event()
        self.stored.set()
        self.store_failed = False
        self.hops = hops
        self.api_key = api_key
        # The provider key, once read: log lines of the turn are redacted
        # with it, and with what its tool runs opened (core.redact).
        self.redactor = Redactor()
        self.conversation = conversation
        self.user = user
        self.depth = depth
        self.deadline = deadline
        self.history = conversation.history() if history is None else history
        self.toolbox = Toolbox.for_turn(agent, deadline)
        self.tool_calls: list[dict] = []
        self.can_approve = can_approve
        self.awaiting: list[dict] = []  # calls held for a decision
        self.asking: Message | None = None  # the message whose calls are held
        self.calls_used = 0  # tool calls already made for this user message
        self.before: Callable[[], None] | None = None  # a decision to apply first
        self.usage = {"input_tokens": 0, "output_tokens": 0}
        self.trimmed = 0  # messages of the history left out to fit the budget
        # None once a call's price is unknown: a partial sum would mislead.
        self.cost: Decimal | None = Decimal(0)

    def run(self) -> ChatReply:
        """The turn to its end; ChatFailed, ChatCancelled as it may end early."""
        try:
            if self.before is not None:
                self.before()
            return self._loop()
        finally:
            if not self.store_failed:
                self.conversation.touch()

    def defer_store(self, new_conversation: bool) -> None:
        """Leave the user's message (and a new conversation) unstored until
        `store_message`, which another thread calls while this one may run."""
        self.stored.clear()
        self.new_conversation = new_conversation

    def store_message(self) -> None:
        """Store the user's message, and the conversation if new, in one
        transaction (one commit). If that fails the turn is cancelled and
        writes nothing."""
        try:
            with transaction.atomic():
                if self.new_conversation:
                    self.conversation.save(force_insert=True)
                self.user_message.save(force_insert=True)
        except BaseException:
            self.store_failed = True
            self.cancelled.set()
            raise
        finally:
            self.stored.set()

    def _may_write(self) -> None:
        """Wait until the user's message is stored; ChatCancelled if it was not."""
        self.stored.wait()
        if self.store_failed:
            raise ChatCancelled("The user's message could not be stored.")

    def _loop(self) -> ChatReply:
        calls_left = settings.AGENT_MAX_TOOL_STEPS - self.calls_used
        while not self.awaiting:
            may_call = calls_left > 0 and bool(self.toolbox.specs)
            result = self._ask(may_call)
            if not (may_call and result.tool_calls):
                data, invalid = parse_reply(self.agent.output_schema, result.content)
                message = self._answer(result, error=invalid and invalid.as_dict())
                if invalid:
                    raise ChatFailed(self.conversation, invalid)
                return self._reply(message, data=data)
            calls = [call.as_dict() for call in result.tool_calls]
            self.asking = self._answer(result, tool_calls=calls)
            for call in result.tool_calls:
                if self.cancelled.is_set():
                    raise ChatCancelled("The caller went away.")
                self.emit("tool_call", call.as_dict())
                if calls_left > 0:
                    self._run_tool(call)
                    calls_left -= 1
                else:
                    self._refuse_tool(call)
        return self._reply(self.asking, awaiting=self.awaiting)

    def _answer(self, result, **fields) -> Message:
        """Store the model's answer (`fields`: its tool calls, or an error)."""
        return self._store(
            role=Message.Role.ASSISTANT,
            content=result.content,
            usage=result.usage,
            cost_usd=result.cost_usd,
            price_source=result.price_source,
            **fields,
        )

    def _reply(self, message: Message, **fields) -> ChatReply:
        usage = self.turn_usage()
        return ChatReply(self.conversation, message, self.tool_calls, usage, **fields)

    def turn_usage(self) -> dict:
        """Tokens of every call of the turn, and their cost in USD (null when a
        model's price is unknown); `context_trimmed` (messages left out) when
        the history was cut to the agent's context budget."""
        cost = None if self.cost is None else float(round(self.cost, 10))
        usage = {**self.usage, "cost_usd": cost}
        if self.trimmed:
            usage["context_trimmed"] = self.trimmed
        return usage

    def _fitted_history(self) -> list[dict]:
        messages, left_out = fit(
            self.history,
            context_tokens=self.agent.context_tokens,
            system=self.agent.system_prompt,
            max_tokens=self.agent.max_tokens,
        )
        self.trimmed = max(self.trimmed, left_out)
        return messages

    def _ask(self, may_call: bool):
        # This call's prompt and text so far: what it cost if cut short.
        self.sent, self.text = [], []
        try:
            check_turn_budget(self.agent, self.cost or Decimal(0))
            check_day_budget(self.agent)  # every call: a tool loop may cross it
            self.sent = self._fitted_history()
            request = ChatRequest(
                model=self.agent.model_name,
                system=self.agent.system_prompt,
                messages=self.sent,
                tools=self.toolbox.specs,
                allow_tool_calls=may_call,
                output_schema=self.agent.output_schema,
                temperature=self.agent.temperature,
                max_tokens=self.agent.max_tokens,
                timeout=self._call_timeout(),
                max_retries=0 if self.deadline is not None else None,
            )
            api_key = self.api_key or self.agent.provider_key()
            refusal = None if api_key else server_key_refusal(self.agent)
            if refusal:
                raise ProviderNotConfigured(refusal)
            if api_key:
                self.redactor.add("provider_key", [api_key])
            provider = provider_for(self.agent.model, api_key)
            result = self._receive(provider.stream(request))
        except ProviderError as error:
            metrics.call_failed(self.agent.model, error.code)
            self._may_write()
            Message.objects.create(
                conversation=self.conversation,
                role=Message.Role.ASSISTANT,
                error=error.as_dict(),
                **cut_short(self.agent, self.sent, self.text, error.code == "timeout"),
            )
            raise ChatFailed(self.conversation, error) from error
        metrics.call_succeeded(self.agent.model, result.usage)
        for key in self.usage:
            self.usage[key] += int(result.usage.get(key) or 0)
        result.cost_usd, result.price_source = price(self.agent.model, result.usage)
        if self.trimmed:
            result.usage = {**result.usage, "context_trimmed": self.trimmed}
        if result.cost_usd is None or self.cost is None:
            self.cost = None
        else:
            self.cost += result.cost_usd
        self.emit("usage", self.turn_usage())
        result.tool_calls = [
            ToolCall(
                storable_text(call.id),
                storable_text(call.name),
                storable_value(call.arguments),
            )
            for call in result.tool_calls
        ]
        return result

    def _receive(self, stream):
        """The provider's result, its text passed on as `token` events. A caller
        gone away closes the stream (and so the provider's connection) and
        leaves the text so far as a `cancelled` reply."""
        text = self.text
        try:
            for item in stream:
                if isinstance(item, TextDelta):
                    text.append(item.text)
                    self.emit("token", {"text": item.text})
                else:
                    return item
                if self.cancelled.is_set():
                    break
        finally:
            stream.close()
        if self.cancelled.is_set():
            self._store(
                role=Message.Role.ASSISTANT,
                content="".join(text),
                error={"code": "cancelled", "message": "The reply was stopped."},
                **cut_short(self.agent, self.sent, self.text, True),
            )
            raise ChatCancelled("The caller went away.")
        raise ProviderError(f"{self.agent.model} ended its answer early.")

    def _call_timeout(self) -> float:
        """AGENT_TIMEOUT_SECONDS, or the time left before the deadline if less."""
        limit = settings.AGENT_TIMEOUT_SECONDS
        if self.deadline is None:
            return limit
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderTimeout(
                f"The run's time limit was reached before {self.agent.name} "
                "could answer."
            )
        return min(limit, remaining)

    def _run_tool(self, call) -> None:
        if self.toolbox.asks_first(call.name):
            ask_first(self, call)
            return
        outcome = self.toolbox.call(
            call, depth=self.depth + 1, deadline=self.deadline, hops=self.hops
        )
        self._record_tool(call, outcome)

    def _refuse_tool(self, call) -> None:
        limit = settings.AGENT_MAX_TOOL_STEPS
        message = f"At most {limit} tool calls are allowed per message; not run."
        self._record_tool(call, refusal("too_many_tool_calls", message))

    def _record_tool(self, call, outcome) -> None:
        """Store the tool message and report the call to the person chatting.

        The run's id is reported only to a member who may read the run's data:
        anyone else could not open it anyway.
        """
        message = self._store(
            role=Message.Role.TOOL,
            content=outcome.content,
            tool_call_id=call.id,
            tool_name=call.name,
            run=outcome.run,
        )
        self.report_tool(call, message, outcome)

    def report_tool(self, call, message: Message, outcome) -> None:
        run = outcome.run
        caller_owns_run = run is not None and can(
            self.user, run.flow.workspace_id, RUNS_DATA
        )
        report = {
            **call.as_dict(),
            "message_id": str(message.pk),
            "run_id": str(run.pk) if caller_owns_run else None,
            "status": outcome.status or (run.status if run else "refused"),
            "result": outcome.result,
        }
        self.tool_calls.append(report)
        self.emit("tool_result", report)

    def _store(self, **fields) -> Message:
        self._may_write()
        if "content" in fields:
            fields["content"] = storable_text(fields["content"])
        message = Message.objects.create(conversation=self.conversation, **fields)
        self.history.append(message.as_history_entry())
        return message
