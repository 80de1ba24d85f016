"""What every served API asks of a round, and the rules the round's answer must then keep.

Pure, no sockets: the chat-completions, Responses and Messages translations
(``openai_api.py``, ``responses_api.py``, ``anthropic_api.py``) each read their
request into one ``RoundRequest`` (chat-shaped messages, function tools, an
effort, a session) and answer from the lane's ``RoundResult``. What they share
lives here: ``ApiError`` (its default body OpenAI's error object) and the
cell-error mapping, the demands a client can make that Cursor's agent service
has no field for (a tool call required, or a named one; JSON output, to a
schema) with the instruction that asks for them,
the check of an answer against them and the one firmer retry, a small JSON
Schema check, and ``replay_parts`` for answering a checked round as a stream.
Running the round (and its retry) is ``routes.py``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from . import contract

if TYPE_CHECKING:
    from nodecode_cursor.errors import CursorError
    from nodecode_cursor.host import RoundContext, RoundResult, StreamPart

__all__ = [
    "EFFORT_NONE",
    "EFFORT_ORDER",
    "MODEL_PREFIX",
    "ApiError",
    "OutputDemand",
    "Reply",
    "RoundRequest",
    "ToolDemand",
    "answer_problem",
    "error_for",
    "error_object",
    "internal_error",
    "nearest_effort",
    "replay_parts",
    "schema_problem",
    "settled",
]

MODEL_PREFIX = "cursor/"
# OpenAI's word for "thinking off"; every other effort, "off" included, is the cell's to read.
EFFORT_NONE = "none"


# OpenAI's error "type" per HTTP status (anything else 5xx is api_error).
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
}


def error_object(status: int, message: str, *, code: str | None = None) -> dict[str, Any]:
    """Return OpenAI's error object for STATUS with MESSAGE and CODE."""
    kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class ApiError(Exception):
    """A request an API refuses: an HTTP status, a machine-readable code and a one-line message."""

    def __init__(self, status: int, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code

    def body(self) -> dict[str, Any]:
        """Return the error as OpenAI's ``{"error": {...}}`` object."""
        return error_object(self.status, self.message, code=self.code)


# The cell's codes whose API-side name differs (OpenAI's clients know model_not_found).
_CONFIG_CODES = {"unknown_model": "model_not_found"}


def error_for(exc: CursorError, *, listed: Collection[str] | None = None) -> ApiError:
    """Return the API error a cell error becomes (status and code chosen from its kind).

    The kind is the error's class and its machine-readable ``code``, never its
    text: the same fault keeps its status however the cell words it. LISTED,
    when given, are the model ids the server lists: an unknown model's hint
    names only those, so a client is never pointed at a model it cannot see.
    """
    # The cell words its sign-in hint for a chat (/cursor login); this API is served by
    # `nodecode-cursor serve`, run from a shell, where the verb is a command.
    detail = exc.detail
    if exc.hint == contract.SIGN_IN_HINT:
        detail = detail.replace(contract.SIGN_IN_HINT, "nodecode-cursor login")
    code = getattr(exc, "code", None)
    if isinstance(exc, (contract.CredentialError, contract.NotSignedIn)):
        return ApiError(401, detail, code="not_signed_in")
    if isinstance(exc, contract.UnknownModel):
        nearest = [m for m in exc.near if listed is None or m in listed]
        # Worded from the fields, for an API client: the ids as it would send them.
        near = ", ".join(f"{MODEL_PREFIX}{model}" for model in nearest)
        unchecked = f" (the account's roster could not be checked: {exc.unchecked})"
        message = (
            f"the model {MODEL_PREFIX}{exc.model} does not exist or your Cursor account cannot "
            f"use it{unchecked if exc.unchecked else ''}"
            + (f"; nearest: {near}" if near else "; GET /v1/models lists the models")
        )
        return ApiError(400, message, code="model_not_found")
    if isinstance(exc, contract.BadEffort):
        if exc.model is None:
            message = (
                f"reasoning_effort {exc.effort!r} is not a known level; "
                f"known: {EFFORT_NONE}, {', '.join(exc.allowed)}"
            )
        else:
            message = (
                f"reasoning_effort {exc.effort!r} is not supported by {MODEL_PREFIX}{exc.model}; "
                f"supported: {', '.join(exc.allowed)}, or {EFFORT_NONE}"
            )
        return ApiError(400, message, code="unsupported_effort")
    if isinstance(exc, contract.ConfigError):
        return ApiError(400, detail, code=_CONFIG_CODES.get(code or "", code or "invalid_request"))
    if isinstance(exc, contract.StreamIncomplete):
        return ApiError(502, detail, code="stream_incomplete")
    status = exc.status if 400 <= exc.status <= 599 else 502
    return ApiError(status, detail, code="provider_error" if status >= 500 else "cursor_error")


def internal_error(exc: BaseException) -> ApiError:
    """Return the 500 an unexpected failure becomes: its kind in one line, never its text.

    The text of an exception nobody raised on purpose can quote anything (a
    header, a request body), so only the class name reaches the client.
    """
    line = contract.scrub(f"internal error: {type(exc).__name__}")
    return ApiError(500, line, code="internal_error")


# Demands ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolDemand:
    """The answer must call a tool: NAME, or any offered tool when NAME is None."""

    name: str | None = None


@dataclass(frozen=True, slots=True)
class OutputDemand:
    """The answer must be one JSON object; SCHEMA (a JSON Schema) when given, any object else."""

    schema: Mapping[str, Any] | None = None
    name: str = "answer"


@dataclass(slots=True)
class RoundRequest:
    """A request of any served API, read and checked, in the terms of a round."""

    model: str
    messages: list[dict[str, Any]]
    system: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    effort: str | None = None
    stream: bool = False
    include_usage: bool = False
    session_id: str | None = None
    # The model id as the client named it (echoed back in the answer's "model").
    requested_model: str = ""
    # The person's kept Cursor account the round runs on (the x-cursor-account header);
    # None: serve's own (--account, cursor.account, else the active one).
    account: str | None = None
    tool_demand: ToolDemand | None = None
    output_demand: OutputDemand | None = None
    # True: an effort the model cannot take is dropped instead of refused (clients that
    # send one effort for every model, as Claude Code and Codex do).
    lenient_effort: bool = False
    # The folder the client works in (working_folder.client_folder); "" when it said none:
    # the round then keeps relative paths relative for the client to resolve.
    working_folder: str = ""

    @property
    def demanding(self) -> bool:
        """Return whether the answer is checked against a demand (and so may be retried)."""
        return self.tool_demand is not None or self.output_demand is not None

    def context(
        self, on_part: Callable[[StreamPart], None] | None = None, *, firmer: bool = False
    ) -> RoundContext:
        """Return the RoundContext of this request (credential and base URL left to the cell).

        A demand rides as an instruction after the system prompt; FIRMER words it
        for the one retry after an answer that did not keep it.
        """
        extra = _instructions(self, firmer=firmer)
        system = "\n\n".join(t for t in (self.system, extra) if t) or None
        return contract.RoundContext(
            model=self.model,
            messages=[dict(m) for m in self.messages],
            effort=self.effort,
            system=system,
            tools=[dict(t) for t in self.tools],
            # The retry is a fresh conversation: the kept one already holds the bad answer.
            session_id=None if firmer else self.session_id,
            cwd=self.working_folder,
            on_part=on_part,
            account=self.account,
        )


def _instructions(request: RoundRequest, *, firmer: bool) -> str | None:
    """Return the instruction text REQUEST's demands add to the system prompt (None: none)."""
    lines: list[str] = []
    tool = request.tool_demand
    if tool is not None:
        target = f"the tool `{tool.name}`" if tool.name else "one of the tools offered"
        lines.append(
            f"You must answer this turn by calling {target}; do not answer in text alone."
            if not firmer
            else f"IMPORTANT: your previous answer did not call {target}. This turn MUST end "
            f"with a call of {target}. Do not write any text answer instead."
        )
    output = request.output_demand
    if output is not None:
        if output.schema is not None:
            schema = json.dumps(output.schema, ensure_ascii=False, sort_keys=True)
            lines.append(
                "Your final answer must be exactly one JSON object, with no prose and no code "
                f"fences, that validates against this JSON Schema ({output.name}): {schema}"
            )
        else:
            lines.append(
                "Your final answer must be exactly one JSON object, with no prose and no code "
                "fences."
            )
        if firmer:
            lines.append(
                "IMPORTANT: your previous answer was not such a JSON object. Reply with the JSON "
                "object alone."
            )
    return "\n".join(lines) or None


_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?```\s*$", re.S)


def _json_text(text: str) -> str:
    """Return TEXT without a Markdown code fence around it (models add one unasked)."""
    match = _FENCE.match(text)
    return (match.group(1) if match else text).strip()


def answer_problem(result: RoundResult, request: RoundRequest) -> str | None:
    """Return what RESULT fails of REQUEST's demands, in one line; None when it keeps them."""
    calls = result.message.get("tool_calls") or []
    tool = request.tool_demand
    if tool is not None:
        names = [str((c.get("function") or {}).get("name")) for c in calls]
        if tool.name is not None and tool.name not in names:
            return f"the model answered without calling the required tool {tool.name}"
        if not names:
            return "the model answered without calling a tool, and one was required"
    output = request.output_demand
    if output is not None and not calls:
        text = _json_text(str(result.message.get("content") or ""))
        try:
            value = json.loads(text)
        except ValueError:
            return "the model's answer is not valid JSON"
        if not isinstance(value, dict):
            return "the model's answer is JSON but not an object"
        if output.schema is not None:
            problem = schema_problem(value, output.schema)
            if problem is not None:
                return f"the model's JSON does not match the schema: {problem}"
    return None


def settled(result: RoundResult, request: RoundRequest) -> RoundResult:
    """Return RESULT as answered: JSON output without the code fence a model put round it."""
    if request.output_demand is None or result.message.get("tool_calls"):
        return result
    message = dict(result.message)
    message["content"] = _json_text(str(message.get("content") or ""))
    return contract.RoundResult(
        message=message,
        usage=result.usage,
        finish_reason=result.finish_reason,
        request=result.request,
        wire_model=result.wire_model,
        folded=result.folded,
        fold_reason=result.fold_reason,
    )


def replay_parts(result: RoundResult) -> list[StreamPart]:
    """Return the stream parts that say RESULT (a checked round is streamed once it is kept)."""
    parts: list[StreamPart] = []
    message = result.message
    if message.get("reasoning_content"):
        parts.append(contract.ReasoningDelta(str(message["reasoning_content"])))
    if message.get("content"):
        parts.append(contract.TextDelta(str(message["content"])))
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") or {}
        parts.append(contract.ToolCallStart(index, str(call.get("id")), str(function.get("name"))))
        parts.append(contract.ToolCallArgsDelta(index, str(function.get("arguments") or "")))
    parts.append(contract.Finish(result.finish_reason))
    return parts


# JSON Schema (structured output's check, on the jsonschema library) ------------------------


def schema_problem(value: Any, schema: Mapping[str, Any]) -> str | None:
    """Return the first place VALUE breaks SCHEMA, in one line; None when it validates.

    Validated by ``jsonschema`` under the draft the schema names (2020-12 when it
    names none): every keyword, ``pattern``, lengths, ranges, ``oneOf`` as exactly
    one, local ``$ref``; ``format`` is checked where the library can. A schema that
    is itself invalid is no demand (the model's answer is not held to it).
    """
    # Deferred: serve loads this module; the validator is needed only for a schema.
    import jsonschema
    from jsonschema.exceptions import SchemaError

    schema = dict(schema)
    kind = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        kind.check_schema(schema)
    except SchemaError:
        return None
    validator = kind(schema, format_checker=kind.FORMAT_CHECKER)
    first = next(iter(validator.iter_errors(value)), None)
    if first is None:
        return None
    return _said(first)


def _said(error: Any) -> str:
    """Return one line for a jsonschema ValidationError: where it is and what it wants."""
    where = "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )
    keyword, wanted, instance = error.validator, error.validator_value, error.instance
    if keyword == "required":
        missing = next((n for n in wanted if isinstance(instance, dict) and n not in instance), "")
        return f"{where} is missing the required property {missing!r}"
    if keyword == "type":
        kinds = [wanted] if isinstance(wanted, str) else list(wanted)
        return f"{where} should be {' or '.join(kinds)}"
    if keyword == "enum":
        return f"{where} should be one of {json.dumps(wanted)}"
    if keyword == "const":
        return f"{where} should be {json.dumps(wanted)}"
    if keyword == "oneOf" and not error.context:
        # No option's failures to show: more than one held.
        return f"{where} matches more than one of the schema's oneOf options"
    if keyword in ("anyOf", "oneOf"):
        return f"{where} matches none of the schema's {keyword} options"
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = error.schema.get("properties") or {}
        extra = next((n for n in instance if n not in allowed), "")
        return f"{where} has a property the schema does not allow: {extra!r}"
    return f"{where}: {error.message}"


# Efforts and replies ---------------------------------------------------------------------------

# Cursor's efforts from least to most, for finding the nearest one a model takes.
EFFORT_ORDER = ("minimal", "low", "medium", "high", "xhigh", "max")


def nearest_effort(effort: str, allowed: Collection[str]) -> str | None:
    """Return the effort of ALLOWED nearest EFFORT (the lower on a tie); None when none is."""
    if not allowed:
        return None
    if effort not in EFFORT_ORDER:
        return "medium" if "medium" in allowed else sorted(allowed)[0]
    rank = EFFORT_ORDER.index(effort)
    ranked = [
        (abs(EFFORT_ORDER.index(a) - rank), EFFORT_ORDER.index(a), a)
        for a in allowed
        if a in EFFORT_ORDER
    ]
    return min(ranked)[2] if ranked else None


class Reply(Protocol):
    """How one API answers one round: whole, as stream events, or as an error."""

    def answer(self, result: RoundResult) -> dict[str, Any]:
        """Return the whole answer to a round that returned RESULT."""
        ...

    def events(self, part: StreamPart) -> list[bytes]:
        """Return the SSE events PART becomes (none for some)."""
        ...

    def closing(self, result: RoundResult) -> list[bytes]:
        """Return the SSE events that end the stream of a round that returned RESULT."""
        ...

    def failed(self, error: ApiError) -> bytes:
        """Return the SSE event that ends a stream the round failed after it began."""
        ...

    def error_body(self, error: ApiError) -> dict[str, Any]:
        """Return ERROR as this API's error object."""
        ...
