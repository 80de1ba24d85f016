from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetDiffRequest_OutputFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTPUT_FORMAT_UNSPECIFIED: _ClassVar[GetDiffRequest_OutputFormat]
    OUTPUT_FORMAT_NAME_STATUS: _ClassVar[GetDiffRequest_OutputFormat]
    OUTPUT_FORMAT_NAME_STATUS_AND_NUMSTAT: _ClassVar[GetDiffRequest_OutputFormat]
    OUTPUT_FORMAT_FILE_DIFFS: _ClassVar[GetDiffRequest_OutputFormat]
    OUTPUT_FORMAT_DIFFS_WITH_BEFORE_AND_AFTER: _ClassVar[GetDiffRequest_OutputFormat]

class ShellBackgroundReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHELL_BACKGROUND_REASON_UNSPECIFIED: _ClassVar[ShellBackgroundReason]
    SHELL_BACKGROUND_REASON_TIMEOUT: _ClassVar[ShellBackgroundReason]
    SHELL_BACKGROUND_REASON_USER_REQUEST: _ClassVar[ShellBackgroundReason]

class SubagentBackgroundReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBAGENT_BACKGROUND_REASON_UNSPECIFIED: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_USER_REQUEST: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP: _ClassVar[SubagentBackgroundReason]

class ForceBackgroundShellStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORCE_BACKGROUND_SHELL_STATUS_UNSPECIFIED: _ClassVar[ForceBackgroundShellStatus]
    FORCE_BACKGROUND_SHELL_STATUS_ACCEPTED: _ClassVar[ForceBackgroundShellStatus]
    FORCE_BACKGROUND_SHELL_STATUS_NOT_FOUND: _ClassVar[ForceBackgroundShellStatus]

class ForceBackgroundSubagentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORCE_BACKGROUND_SUBAGENT_STATUS_UNSPECIFIED: _ClassVar[ForceBackgroundSubagentStatus]
    FORCE_BACKGROUND_SUBAGENT_STATUS_ACCEPTED: _ClassVar[ForceBackgroundSubagentStatus]
    FORCE_BACKGROUND_SUBAGENT_STATUS_NOT_FOUND: _ClassVar[ForceBackgroundSubagentStatus]

class SmartModeClassifierDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SMART_MODE_CLASSIFIER_DECISION_UNSPECIFIED: _ClassVar[SmartModeClassifierDecision]
    SMART_MODE_CLASSIFIER_DECISION_ALLOW: _ClassVar[SmartModeClassifierDecision]
    SMART_MODE_CLASSIFIER_DECISION_BLOCK: _ClassVar[SmartModeClassifierDecision]

class Http2Config(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HTTP2_CONFIG_UNSPECIFIED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_ALL_DISABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_ALL_ENABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_BIDI_DISABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_BIDI_ENABLED: _ClassVar[Http2Config]
OUTPUT_FORMAT_UNSPECIFIED: GetDiffRequest_OutputFormat
OUTPUT_FORMAT_NAME_STATUS: GetDiffRequest_OutputFormat
OUTPUT_FORMAT_NAME_STATUS_AND_NUMSTAT: GetDiffRequest_OutputFormat
OUTPUT_FORMAT_FILE_DIFFS: GetDiffRequest_OutputFormat
OUTPUT_FORMAT_DIFFS_WITH_BEFORE_AND_AFTER: GetDiffRequest_OutputFormat
SHELL_BACKGROUND_REASON_UNSPECIFIED: ShellBackgroundReason
SHELL_BACKGROUND_REASON_TIMEOUT: ShellBackgroundReason
SHELL_BACKGROUND_REASON_USER_REQUEST: ShellBackgroundReason
SUBAGENT_BACKGROUND_REASON_UNSPECIFIED: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_USER_REQUEST: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP: SubagentBackgroundReason
FORCE_BACKGROUND_SHELL_STATUS_UNSPECIFIED: ForceBackgroundShellStatus
FORCE_BACKGROUND_SHELL_STATUS_ACCEPTED: ForceBackgroundShellStatus
FORCE_BACKGROUND_SHELL_STATUS_NOT_FOUND: ForceBackgroundShellStatus
FORCE_BACKGROUND_SUBAGENT_STATUS_UNSPECIFIED: ForceBackgroundSubagentStatus
FORCE_BACKGROUND_SUBAGENT_STATUS_ACCEPTED: ForceBackgroundSubagentStatus
FORCE_BACKGROUND_SUBAGENT_STATUS_NOT_FOUND: ForceBackgroundSubagentStatus
SMART_MODE_CLASSIFIER_DECISION_UNSPECIFIED: SmartModeClassifierDecision
SMART_MODE_CLASSIFIER_DECISION_ALLOW: SmartModeClassifierDecision
SMART_MODE_CLASSIFIER_DECISION_BLOCK: SmartModeClassifierDecision
HTTP2_CONFIG_UNSPECIFIED: Http2Config
HTTP2_CONFIG_FORCE_ALL_DISABLED: Http2Config
HTTP2_CONFIG_FORCE_ALL_ENABLED: Http2Config
HTTP2_CONFIG_FORCE_BIDI_DISABLED: Http2Config
HTTP2_CONFIG_FORCE_BIDI_ENABLED: Http2Config

class AgentClientMessage(_message.Message):
    __slots__ = ("run_request", "exec_client_message", "exec_client_control_message", "kv_client_message", "conversation_action", "interaction_response", "client_heartbeat", "prewarm_request")
    RUN_REQUEST_FIELD_NUMBER: _ClassVar[int]
    EXEC_CLIENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EXEC_CLIENT_CONTROL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    KV_CLIENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ACTION_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    PREWARM_REQUEST_FIELD_NUMBER: _ClassVar[int]
    run_request: AgentRunRequest
    exec_client_message: ExecClientMessage
    exec_client_control_message: ExecClientControlMessage
    kv_client_message: KvClientMessage
    conversation_action: ConversationAction
    interaction_response: InteractionResponse
    client_heartbeat: ClientHeartbeat
    prewarm_request: PrewarmRequest
    def __init__(self, run_request: _Optional[_Union[AgentRunRequest, _Mapping]] = ..., exec_client_message: _Optional[_Union[ExecClientMessage, _Mapping]] = ..., exec_client_control_message: _Optional[_Union[ExecClientControlMessage, _Mapping]] = ..., kv_client_message: _Optional[_Union[KvClientMessage, _Mapping]] = ..., conversation_action: _Optional[_Union[ConversationAction, _Mapping]] = ..., interaction_response: _Optional[_Union[InteractionResponse, _Mapping]] = ..., client_heartbeat: _Optional[_Union[ClientHeartbeat, _Mapping]] = ..., prewarm_request: _Optional[_Union[PrewarmRequest, _Mapping]] = ...) -> None: ...

class AgentServerMessage(_message.Message):
    __slots__ = ("interaction_update", "exec_server_message", "exec_server_control_message", "conversation_checkpoint_update", "kv_server_message", "interaction_query", "ttft_breakdown")
    INTERACTION_UPDATE_FIELD_NUMBER: _ClassVar[int]
    EXEC_SERVER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EXEC_SERVER_CONTROL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_CHECKPOINT_UPDATE_FIELD_NUMBER: _ClassVar[int]
    KV_SERVER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_QUERY_FIELD_NUMBER: _ClassVar[int]
    TTFT_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    interaction_update: InteractionUpdate
    exec_server_message: ExecServerMessage
    exec_server_control_message: ExecServerControlMessage
    conversation_checkpoint_update: ConversationStateStructure
    kv_server_message: KvServerMessage
    interaction_query: InteractionQuery
    ttft_breakdown: TtftBreakdown
    def __init__(self, interaction_update: _Optional[_Union[InteractionUpdate, _Mapping]] = ..., exec_server_message: _Optional[_Union[ExecServerMessage, _Mapping]] = ..., exec_server_control_message: _Optional[_Union[ExecServerControlMessage, _Mapping]] = ..., conversation_checkpoint_update: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., kv_server_message: _Optional[_Union[KvServerMessage, _Mapping]] = ..., interaction_query: _Optional[_Union[InteractionQuery, _Mapping]] = ..., ttft_breakdown: _Optional[_Union[TtftBreakdown, _Mapping]] = ...) -> None: ...

class BidiRequestId(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class ClientHeartbeat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PrewarmRequest(_message.Message):
    __slots__ = ("model_details", "requested_model", "conversation_id", "conversation_state", "mcp_tools", "mcp_file_system_options", "best_of_n_group_id", "try_use_best_of_n_promotion", "custom_system_prompt")
    MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_STATE_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    BEST_OF_N_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    TRY_USE_BEST_OF_N_PROMOTION_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    model_details: ModelDetails
    requested_model: RequestedModel
    conversation_id: str
    conversation_state: ConversationStateStructure
    mcp_tools: McpTools
    mcp_file_system_options: McpFileSystemOptions
    best_of_n_group_id: str
    try_use_best_of_n_promotion: bool
    custom_system_prompt: str
    def __init__(self, model_details: _Optional[_Union[ModelDetails, _Mapping]] = ..., requested_model: _Optional[_Union[RequestedModel, _Mapping]] = ..., conversation_id: _Optional[str] = ..., conversation_state: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., mcp_tools: _Optional[_Union[McpTools, _Mapping]] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ..., best_of_n_group_id: _Optional[str] = ..., try_use_best_of_n_promotion: _Optional[bool] = ..., custom_system_prompt: _Optional[str] = ...) -> None: ...

class TtftBreakdown(_message.Message):
    __slots__ = ("server_first_token_ms", "pre_stream_setup_ms", "wait_for_first_event_ms", "provider_ttft_ms", "slow_pool_wait_ms")
    SERVER_FIRST_TOKEN_MS_FIELD_NUMBER: _ClassVar[int]
    PRE_STREAM_SETUP_MS_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_FIRST_EVENT_MS_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_TTFT_MS_FIELD_NUMBER: _ClassVar[int]
    SLOW_POOL_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    server_first_token_ms: int
    pre_stream_setup_ms: int
    wait_for_first_event_ms: int
    provider_ttft_ms: int
    slow_pool_wait_ms: int
    def __init__(self, server_first_token_ms: _Optional[int] = ..., pre_stream_setup_ms: _Optional[int] = ..., wait_for_first_event_ms: _Optional[int] = ..., provider_ttft_ms: _Optional[int] = ..., slow_pool_wait_ms: _Optional[int] = ...) -> None: ...

class AgentRunRequest(_message.Message):
    __slots__ = ("conversation_state", "action", "model_details", "requested_model", "mcp_tools", "conversation_id", "mcp_file_system_options", "skill_options", "custom_system_prompt", "suggest_next_prompt", "subagent_type_name", "exclude_workspace_context", "harness", "selected_subagent_models", "selected_subagent_model_details", "conversation_group_id", "pre_fetched_blobs", "dev_raw_model_slug", "client_supports_inline_images", "subagent_model_overrides", "can_create_cloud_subagents", "suppress_subagent_progress_update_tool", "client_supports_send_to_user", "computer_use_coordinate_mode", "run_id", "agent_session_id", "client_supports_prompt_context_usage_rpc", "client_supports_routed_model_update")
    CONVERSATION_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SKILL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUGGEST_NEXT_PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_WORKSPACE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    HARNESS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODELS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    PRE_FETCHED_BLOBS_FIELD_NUMBER: _ClassVar[int]
    DEV_RAW_MODEL_SLUG_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_INLINE_IMAGES_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_MODEL_OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CAN_CREATE_CLOUD_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    SUPPRESS_SUBAGENT_PROGRESS_UPDATE_TOOL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_SEND_TO_USER_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_COORDINATE_MODE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_PROMPT_CONTEXT_USAGE_RPC_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_ROUTED_MODEL_UPDATE_FIELD_NUMBER: _ClassVar[int]
    conversation_state: ConversationStateStructure
    action: ConversationAction
    model_details: ModelDetails
    requested_model: RequestedModel
    mcp_tools: McpTools
    conversation_id: str
    mcp_file_system_options: McpFileSystemOptions
    skill_options: SkillOptions
    custom_system_prompt: str
    suggest_next_prompt: bool
    subagent_type_name: str
    exclude_workspace_context: bool
    harness: str
    selected_subagent_models: _containers.RepeatedCompositeFieldContainer[RequestedModel]
    selected_subagent_model_details: _containers.RepeatedCompositeFieldContainer[ModelDetails]
    conversation_group_id: str
    pre_fetched_blobs: _containers.RepeatedCompositeFieldContainer[PreFetchedBlob]
    dev_raw_model_slug: str
    client_supports_inline_images: bool
    subagent_model_overrides: _containers.RepeatedCompositeFieldContainer[SubagentModelOverride]
    can_create_cloud_subagents: bool
    suppress_subagent_progress_update_tool: bool
    client_supports_send_to_user: bool
    computer_use_coordinate_mode: int
    run_id: str
    agent_session_id: str
    client_supports_prompt_context_usage_rpc: bool
    client_supports_routed_model_update: bool
    def __init__(self, conversation_state: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., action: _Optional[_Union[ConversationAction, _Mapping]] = ..., model_details: _Optional[_Union[ModelDetails, _Mapping]] = ..., requested_model: _Optional[_Union[RequestedModel, _Mapping]] = ..., mcp_tools: _Optional[_Union[McpTools, _Mapping]] = ..., conversation_id: _Optional[str] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ..., skill_options: _Optional[_Union[SkillOptions, _Mapping]] = ..., custom_system_prompt: _Optional[str] = ..., suggest_next_prompt: _Optional[bool] = ..., subagent_type_name: _Optional[str] = ..., exclude_workspace_context: _Optional[bool] = ..., harness: _Optional[str] = ..., selected_subagent_models: _Optional[_Iterable[_Union[RequestedModel, _Mapping]]] = ..., selected_subagent_model_details: _Optional[_Iterable[_Union[ModelDetails, _Mapping]]] = ..., conversation_group_id: _Optional[str] = ..., pre_fetched_blobs: _Optional[_Iterable[_Union[PreFetchedBlob, _Mapping]]] = ..., dev_raw_model_slug: _Optional[str] = ..., client_supports_inline_images: _Optional[bool] = ..., subagent_model_overrides: _Optional[_Iterable[_Union[SubagentModelOverride, _Mapping]]] = ..., can_create_cloud_subagents: _Optional[bool] = ..., suppress_subagent_progress_update_tool: _Optional[bool] = ..., client_supports_send_to_user: _Optional[bool] = ..., computer_use_coordinate_mode: _Optional[int] = ..., run_id: _Optional[str] = ..., agent_session_id: _Optional[str] = ..., client_supports_prompt_context_usage_rpc: _Optional[bool] = ..., client_supports_routed_model_update: _Optional[bool] = ...) -> None: ...

class PreFetchedBlob(_message.Message):
    __slots__ = ("id", "data")
    ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    data: bytes
    def __init__(self, id: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class SubagentModelOverride(_message.Message):
    __slots__ = ("subagent_type", "requested_model")
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    subagent_type: str
    requested_model: RequestedModel
    def __init__(self, subagent_type: _Optional[str] = ..., requested_model: _Optional[_Union[RequestedModel, _Mapping]] = ...) -> None: ...

class ConversationStateStructure(_message.Message):
    __slots__ = ("turns_old", "root_prompt_messages_json", "turns", "todos", "pending_tool_calls", "token_details", "summary", "plan", "previous_workspace_uris", "mode", "summary_archive", "file_states", "file_states_v2", "summary_archives", "turn_timings", "subagent_states", "self_summary_count", "read_paths")
    class FileStatesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    class FileStatesV2Entry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: FileStateStructure
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[FileStateStructure, _Mapping]] = ...) -> None: ...
    class SubagentStatesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SubagentPersistedState
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SubagentPersistedState, _Mapping]] = ...) -> None: ...
    TURNS_OLD_FIELD_NUMBER: _ClassVar[int]
    ROOT_PROMPT_MESSAGES_JSON_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    TODOS_FIELD_NUMBER: _ClassVar[int]
    PENDING_TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_DETAILS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_WORKSPACE_URIS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    FILE_STATES_FIELD_NUMBER: _ClassVar[int]
    FILE_STATES_V2_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ARCHIVES_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMINGS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_STATES_FIELD_NUMBER: _ClassVar[int]
    SELF_SUMMARY_COUNT_FIELD_NUMBER: _ClassVar[int]
    READ_PATHS_FIELD_NUMBER: _ClassVar[int]
    turns_old: _containers.RepeatedScalarFieldContainer[bytes]
    root_prompt_messages_json: _containers.RepeatedScalarFieldContainer[bytes]
    turns: _containers.RepeatedScalarFieldContainer[bytes]
    todos: _containers.RepeatedScalarFieldContainer[bytes]
    pending_tool_calls: _containers.RepeatedScalarFieldContainer[str]
    token_details: ConversationTokenDetails
    summary: bytes
    plan: bytes
    previous_workspace_uris: _containers.RepeatedScalarFieldContainer[str]
    mode: int
    summary_archive: bytes
    file_states: _containers.ScalarMap[str, bytes]
    file_states_v2: _containers.MessageMap[str, FileStateStructure]
    summary_archives: _containers.RepeatedScalarFieldContainer[bytes]
    turn_timings: _containers.RepeatedCompositeFieldContainer[StepTiming]
    subagent_states: _containers.MessageMap[str, SubagentPersistedState]
    self_summary_count: int
    read_paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, turns_old: _Optional[_Iterable[bytes]] = ..., root_prompt_messages_json: _Optional[_Iterable[bytes]] = ..., turns: _Optional[_Iterable[bytes]] = ..., todos: _Optional[_Iterable[bytes]] = ..., pending_tool_calls: _Optional[_Iterable[str]] = ..., token_details: _Optional[_Union[ConversationTokenDetails, _Mapping]] = ..., summary: _Optional[bytes] = ..., plan: _Optional[bytes] = ..., previous_workspace_uris: _Optional[_Iterable[str]] = ..., mode: _Optional[int] = ..., summary_archive: _Optional[bytes] = ..., file_states: _Optional[_Mapping[str, bytes]] = ..., file_states_v2: _Optional[_Mapping[str, FileStateStructure]] = ..., summary_archives: _Optional[_Iterable[bytes]] = ..., turn_timings: _Optional[_Iterable[_Union[StepTiming, _Mapping]]] = ..., subagent_states: _Optional[_Mapping[str, SubagentPersistedState]] = ..., self_summary_count: _Optional[int] = ..., read_paths: _Optional[_Iterable[str]] = ...) -> None: ...

class ConversationTokenDetails(_message.Message):
    __slots__ = ("used_tokens", "max_tokens")
    USED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    used_tokens: int
    max_tokens: int
    def __init__(self, used_tokens: _Optional[int] = ..., max_tokens: _Optional[int] = ...) -> None: ...

class ConversationAction(_message.Message):
    __slots__ = ("user_message_action", "resume_action", "cancel_action", "summarize_action", "shell_command_action", "start_plan_action", "execute_plan_action", "async_ask_question_completion_action")
    USER_MESSAGE_ACTION_FIELD_NUMBER: _ClassVar[int]
    RESUME_ACTION_FIELD_NUMBER: _ClassVar[int]
    CANCEL_ACTION_FIELD_NUMBER: _ClassVar[int]
    SUMMARIZE_ACTION_FIELD_NUMBER: _ClassVar[int]
    SHELL_COMMAND_ACTION_FIELD_NUMBER: _ClassVar[int]
    START_PLAN_ACTION_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_PLAN_ACTION_FIELD_NUMBER: _ClassVar[int]
    ASYNC_ASK_QUESTION_COMPLETION_ACTION_FIELD_NUMBER: _ClassVar[int]
    user_message_action: UserMessageAction
    resume_action: ResumeAction
    cancel_action: CancelAction
    summarize_action: SummarizeAction
    shell_command_action: ShellCommandAction
    start_plan_action: StartPlanAction
    execute_plan_action: ExecutePlanAction
    async_ask_question_completion_action: AsyncAskQuestionCompletionAction
    def __init__(self, user_message_action: _Optional[_Union[UserMessageAction, _Mapping]] = ..., resume_action: _Optional[_Union[ResumeAction, _Mapping]] = ..., cancel_action: _Optional[_Union[CancelAction, _Mapping]] = ..., summarize_action: _Optional[_Union[SummarizeAction, _Mapping]] = ..., shell_command_action: _Optional[_Union[ShellCommandAction, _Mapping]] = ..., start_plan_action: _Optional[_Union[StartPlanAction, _Mapping]] = ..., execute_plan_action: _Optional[_Union[ExecutePlanAction, _Mapping]] = ..., async_ask_question_completion_action: _Optional[_Union[AsyncAskQuestionCompletionAction, _Mapping]] = ...) -> None: ...

class UserMessageAction(_message.Message):
    __slots__ = ("user_message", "request_context", "send_to_interaction_listener")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SEND_TO_INTERACTION_LISTENER_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    request_context: RequestContext
    send_to_interaction_listener: bool
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ..., request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., send_to_interaction_listener: _Optional[bool] = ...) -> None: ...

class ResumeAction(_message.Message):
    __slots__ = ("request_context",)
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ...) -> None: ...

class CancelAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SummarizeAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellCommandAction(_message.Message):
    __slots__ = ("shell_command", "exec_id")
    SHELL_COMMAND_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    shell_command: ShellCommand
    exec_id: str
    def __init__(self, shell_command: _Optional[_Union[ShellCommand, _Mapping]] = ..., exec_id: _Optional[str] = ...) -> None: ...

class ShellCommand(_message.Message):
    __slots__ = ("command",)
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    command: str
    def __init__(self, command: _Optional[str] = ...) -> None: ...

class StartPlanAction(_message.Message):
    __slots__ = ("user_message", "request_context", "is_spec")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    IS_SPEC_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    request_context: RequestContext
    is_spec: bool
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ..., request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., is_spec: _Optional[bool] = ...) -> None: ...

class ExecutePlanAction(_message.Message):
    __slots__ = ("request_context", "plan", "plan_file_uri", "plan_file_content")
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    PLAN_FILE_URI_FIELD_NUMBER: _ClassVar[int]
    PLAN_FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    plan: ConversationPlan
    plan_file_uri: str
    plan_file_content: str
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., plan: _Optional[_Union[ConversationPlan, _Mapping]] = ..., plan_file_uri: _Optional[str] = ..., plan_file_content: _Optional[str] = ...) -> None: ...

class AsyncAskQuestionCompletionAction(_message.Message):
    __slots__ = ("original_tool_call_id", "original_args", "result")
    ORIGINAL_TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    original_tool_call_id: str
    original_args: AskQuestionArgs
    result: AskQuestionResult
    def __init__(self, original_tool_call_id: _Optional[str] = ..., original_args: _Optional[_Union[AskQuestionArgs, _Mapping]] = ..., result: _Optional[_Union[AskQuestionResult, _Mapping]] = ...) -> None: ...

class AskQuestionResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ASYNC_FIELD_NUMBER: _ClassVar[int]
    success: AskQuestionSuccess
    error: AskQuestionError
    rejected: AskQuestionRejected
    def __init__(self, success: _Optional[_Union[AskQuestionSuccess, _Mapping]] = ..., error: _Optional[_Union[AskQuestionError, _Mapping]] = ..., rejected: _Optional[_Union[AskQuestionRejected, _Mapping]] = ..., **kwargs) -> None: ...

class AskQuestionSuccess(_message.Message):
    __slots__ = ("answers",)
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    answers: _containers.RepeatedCompositeFieldContainer[AskQuestionSuccess_Answer]
    def __init__(self, answers: _Optional[_Iterable[_Union[AskQuestionSuccess_Answer, _Mapping]]] = ...) -> None: ...

class AskQuestionSuccess_Answer(_message.Message):
    __slots__ = ("question_id", "selected_option_ids")
    QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
    SELECTED_OPTION_IDS_FIELD_NUMBER: _ClassVar[int]
    question_id: str
    selected_option_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, question_id: _Optional[str] = ..., selected_option_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class AskQuestionError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class AskQuestionRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class AskQuestionAsync(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UserMessage(_message.Message):
    __slots__ = ("text", "message_id", "selected_context", "mode", "is_simulated_msg", "best_of_n_group_id", "try_use_best_of_n_promotion", "rich_text")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SELECTED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    IS_SIMULATED_MSG_FIELD_NUMBER: _ClassVar[int]
    BEST_OF_N_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    TRY_USE_BEST_OF_N_PROMOTION_FIELD_NUMBER: _ClassVar[int]
    RICH_TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    message_id: str
    selected_context: SelectedContext
    mode: int
    is_simulated_msg: bool
    best_of_n_group_id: str
    try_use_best_of_n_promotion: bool
    rich_text: str
    def __init__(self, text: _Optional[str] = ..., message_id: _Optional[str] = ..., selected_context: _Optional[_Union[SelectedContext, _Mapping]] = ..., mode: _Optional[int] = ..., is_simulated_msg: _Optional[bool] = ..., best_of_n_group_id: _Optional[str] = ..., try_use_best_of_n_promotion: _Optional[bool] = ..., rich_text: _Optional[str] = ...) -> None: ...

class SelectedContext(_message.Message):
    __slots__ = ("selected_images", "invocation_context", "extra_context", "extra_context_entries", "files", "code_selections", "terminals", "terminal_selections", "folders", "external_links", "cursor_rules", "git_diff", "git_diff_from_branch_to_main", "cursor_commands", "documentations", "ui_elements", "console_logs", "git_commits", "past_chats", "git_pr_diff_selections", "selected_pull_requests", "selected_subagents")
    SELECTED_IMAGES_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    EXTRA_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    EXTRA_CONTEXT_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    CODE_SELECTIONS_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_SELECTIONS_FIELD_NUMBER: _ClassVar[int]
    FOLDERS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_LINKS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_RULES_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_FROM_BRANCH_TO_MAIN_FIELD_NUMBER: _ClassVar[int]
    CURSOR_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTATIONS_FIELD_NUMBER: _ClassVar[int]
    UI_ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    CONSOLE_LOGS_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMITS_FIELD_NUMBER: _ClassVar[int]
    PAST_CHATS_FIELD_NUMBER: _ClassVar[int]
    GIT_PR_DIFF_SELECTIONS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_PULL_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    selected_images: _containers.RepeatedCompositeFieldContainer[SelectedImage]
    invocation_context: InvocationContext
    extra_context: _containers.RepeatedScalarFieldContainer[str]
    extra_context_entries: _containers.RepeatedCompositeFieldContainer[ExtraContextEntry]
    files: _containers.RepeatedCompositeFieldContainer[SelectedFile]
    code_selections: _containers.RepeatedCompositeFieldContainer[SelectedCodeSelection]
    terminals: _containers.RepeatedCompositeFieldContainer[SelectedTerminal]
    terminal_selections: _containers.RepeatedCompositeFieldContainer[SelectedTerminalSelection]
    folders: _containers.RepeatedCompositeFieldContainer[SelectedFolder]
    external_links: _containers.RepeatedCompositeFieldContainer[SelectedExternalLink]
    cursor_rules: _containers.RepeatedCompositeFieldContainer[SelectedCursorRule]
    git_diff: SelectedGitDiff
    git_diff_from_branch_to_main: SelectedGitDiffFromBranchToMain
    cursor_commands: _containers.RepeatedCompositeFieldContainer[SelectedCursorCommand]
    documentations: _containers.RepeatedCompositeFieldContainer[SelectedDocumentation]
    ui_elements: _containers.RepeatedCompositeFieldContainer[SelectedUIElement]
    console_logs: _containers.RepeatedCompositeFieldContainer[SelectedConsoleLog]
    git_commits: _containers.RepeatedCompositeFieldContainer[SelectedGitCommit]
    past_chats: _containers.RepeatedCompositeFieldContainer[SelectedPastChat]
    git_pr_diff_selections: _containers.RepeatedCompositeFieldContainer[SelectedGitPRDiffSelection]
    selected_pull_requests: _containers.RepeatedCompositeFieldContainer[SelectedPullRequest]
    selected_subagents: _containers.RepeatedCompositeFieldContainer[SelectedSubagent]
    def __init__(self, selected_images: _Optional[_Iterable[_Union[SelectedImage, _Mapping]]] = ..., invocation_context: _Optional[_Union[InvocationContext, _Mapping]] = ..., extra_context: _Optional[_Iterable[str]] = ..., extra_context_entries: _Optional[_Iterable[_Union[ExtraContextEntry, _Mapping]]] = ..., files: _Optional[_Iterable[_Union[SelectedFile, _Mapping]]] = ..., code_selections: _Optional[_Iterable[_Union[SelectedCodeSelection, _Mapping]]] = ..., terminals: _Optional[_Iterable[_Union[SelectedTerminal, _Mapping]]] = ..., terminal_selections: _Optional[_Iterable[_Union[SelectedTerminalSelection, _Mapping]]] = ..., folders: _Optional[_Iterable[_Union[SelectedFolder, _Mapping]]] = ..., external_links: _Optional[_Iterable[_Union[SelectedExternalLink, _Mapping]]] = ..., cursor_rules: _Optional[_Iterable[_Union[SelectedCursorRule, _Mapping]]] = ..., git_diff: _Optional[_Union[SelectedGitDiff, _Mapping]] = ..., git_diff_from_branch_to_main: _Optional[_Union[SelectedGitDiffFromBranchToMain, _Mapping]] = ..., cursor_commands: _Optional[_Iterable[_Union[SelectedCursorCommand, _Mapping]]] = ..., documentations: _Optional[_Iterable[_Union[SelectedDocumentation, _Mapping]]] = ..., ui_elements: _Optional[_Iterable[_Union[SelectedUIElement, _Mapping]]] = ..., console_logs: _Optional[_Iterable[_Union[SelectedConsoleLog, _Mapping]]] = ..., git_commits: _Optional[_Iterable[_Union[SelectedGitCommit, _Mapping]]] = ..., past_chats: _Optional[_Iterable[_Union[SelectedPastChat, _Mapping]]] = ..., git_pr_diff_selections: _Optional[_Iterable[_Union[SelectedGitPRDiffSelection, _Mapping]]] = ..., selected_pull_requests: _Optional[_Iterable[_Union[SelectedPullRequest, _Mapping]]] = ..., selected_subagents: _Optional[_Iterable[_Union[SelectedSubagent, _Mapping]]] = ...) -> None: ...

class SelectedImage(_message.Message):
    __slots__ = ("uuid", "path", "dimension", "mime_type", "blob_id", "data", "blob_id_with_data")
    UUID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_WITH_DATA_FIELD_NUMBER: _ClassVar[int]
    uuid: str
    path: str
    dimension: SelectedImage_Dimension
    mime_type: str
    blob_id: bytes
    data: bytes
    blob_id_with_data: SelectedImage_BlobIdWithData
    def __init__(self, uuid: _Optional[str] = ..., path: _Optional[str] = ..., dimension: _Optional[_Union[SelectedImage_Dimension, _Mapping]] = ..., mime_type: _Optional[str] = ..., blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ..., blob_id_with_data: _Optional[_Union[SelectedImage_BlobIdWithData, _Mapping]] = ...) -> None: ...

class SelectedImage_Dimension(_message.Message):
    __slots__ = ("width", "height")
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    width: int
    height: int
    def __init__(self, width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...

class SelectedImage_BlobIdWithData(_message.Message):
    __slots__ = ("blob_id", "data")
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    data: bytes
    def __init__(self, blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ...) -> None: ...

class ModelDetails(_message.Message):
    __slots__ = ("model_id", "display_model_id", "display_name", "display_name_short", "aliases", "thinking_details", "max_mode", "api_key_credentials", "azure_credentials", "bedrock_credentials")
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_SHORT_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    THINKING_DETAILS_FIELD_NUMBER: _ClassVar[int]
    MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    API_KEY_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    AZURE_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BEDROCK_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    display_model_id: str
    display_name: str
    display_name_short: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    thinking_details: ThinkingDetails
    max_mode: bool
    api_key_credentials: ApiKeyCredentials
    azure_credentials: AzureCredentials
    bedrock_credentials: BedrockCredentials
    def __init__(self, model_id: _Optional[str] = ..., display_model_id: _Optional[str] = ..., display_name: _Optional[str] = ..., display_name_short: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., thinking_details: _Optional[_Union[ThinkingDetails, _Mapping]] = ..., max_mode: _Optional[bool] = ..., api_key_credentials: _Optional[_Union[ApiKeyCredentials, _Mapping]] = ..., azure_credentials: _Optional[_Union[AzureCredentials, _Mapping]] = ..., bedrock_credentials: _Optional[_Union[BedrockCredentials, _Mapping]] = ...) -> None: ...

class ThinkingDetails(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ApiKeyCredentials(_message.Message):
    __slots__ = ("api_key", "base_url")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    def __init__(self, api_key: _Optional[str] = ..., base_url: _Optional[str] = ...) -> None: ...

class AzureCredentials(_message.Message):
    __slots__ = ("api_key", "base_url", "deployment")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    deployment: str
    def __init__(self, api_key: _Optional[str] = ..., base_url: _Optional[str] = ..., deployment: _Optional[str] = ...) -> None: ...

class BedrockCredentials(_message.Message):
    __slots__ = ("access_key", "secret_key", "region", "session_token")
    ACCESS_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    SESSION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    access_key: str
    secret_key: str
    region: str
    session_token: str
    def __init__(self, access_key: _Optional[str] = ..., secret_key: _Optional[str] = ..., region: _Optional[str] = ..., session_token: _Optional[str] = ...) -> None: ...

class RequestedModel(_message.Message):
    __slots__ = ("model_id", "max_mode", "parameters", "api_key_credentials", "azure_credentials", "bedrock_credentials", "built_in_model", "is_variant_string_representation")
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    API_KEY_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    AZURE_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BEDROCK_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BUILT_IN_MODEL_FIELD_NUMBER: _ClassVar[int]
    IS_VARIANT_STRING_REPRESENTATION_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    max_mode: bool
    parameters: _containers.RepeatedCompositeFieldContainer[RequestedModel_ModelParameterbytes]
    api_key_credentials: ApiKeyCredentials
    azure_credentials: AzureCredentials
    bedrock_credentials: BedrockCredentials
    built_in_model: bool
    is_variant_string_representation: bool
    def __init__(self, model_id: _Optional[str] = ..., max_mode: _Optional[bool] = ..., parameters: _Optional[_Iterable[_Union[RequestedModel_ModelParameterbytes, _Mapping]]] = ..., api_key_credentials: _Optional[_Union[ApiKeyCredentials, _Mapping]] = ..., azure_credentials: _Optional[_Union[AzureCredentials, _Mapping]] = ..., bedrock_credentials: _Optional[_Union[BedrockCredentials, _Mapping]] = ..., built_in_model: _Optional[bool] = ..., is_variant_string_representation: _Optional[bool] = ...) -> None: ...

class RequestedModel_ModelParameterbytes(_message.Message):
    __slots__ = ("id", "value")
    ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    id: str
    value: str
    def __init__(self, id: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class McpTools(_message.Message):
    __slots__ = ("mcp_tools",)
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    mcp_tools: _containers.RepeatedCompositeFieldContainer[McpToolDefinition]
    def __init__(self, mcp_tools: _Optional[_Iterable[_Union[McpToolDefinition, _Mapping]]] = ...) -> None: ...

class ConversationTurnStructure(_message.Message):
    __slots__ = ("agent_conversation_turn", "shell_conversation_turn")
    AGENT_CONVERSATION_TURN_FIELD_NUMBER: _ClassVar[int]
    SHELL_CONVERSATION_TURN_FIELD_NUMBER: _ClassVar[int]
    agent_conversation_turn: AgentConversationTurnStructure
    shell_conversation_turn: ShellConversationTurnStructure
    def __init__(self, agent_conversation_turn: _Optional[_Union[AgentConversationTurnStructure, _Mapping]] = ..., shell_conversation_turn: _Optional[_Union[ShellConversationTurnStructure, _Mapping]] = ...) -> None: ...

class AgentConversationTurnStructure(_message.Message):
    __slots__ = ("user_message", "steps", "request_id")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    user_message: bytes
    steps: _containers.RepeatedScalarFieldContainer[bytes]
    request_id: str
    def __init__(self, user_message: _Optional[bytes] = ..., steps: _Optional[_Iterable[bytes]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ShellConversationTurnStructure(_message.Message):
    __slots__ = ("shell_command", "shell_output")
    SHELL_COMMAND_FIELD_NUMBER: _ClassVar[int]
    SHELL_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    shell_command: bytes
    shell_output: bytes
    def __init__(self, shell_command: _Optional[bytes] = ..., shell_output: _Optional[bytes] = ...) -> None: ...

class ConversationStep(_message.Message):
    __slots__ = ("assistant_message", "tool_call", "thinking_message")
    ASSISTANT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    THINKING_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    assistant_message: AssistantMessage
    tool_call: ToolCall
    thinking_message: ThinkingMessage
    def __init__(self, assistant_message: _Optional[_Union[AssistantMessage, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., thinking_message: _Optional[_Union[ThinkingMessage, _Mapping]] = ...) -> None: ...

class AssistantMessage(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ThinkingMessage(_message.Message):
    __slots__ = ("text", "duration_ms")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    text: str
    duration_ms: int
    def __init__(self, text: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ("shell_tool_call", "delete_tool_call", "glob_tool_call", "grep_tool_call", "read_tool_call", "update_todos_tool_call", "read_todos_tool_call", "edit_tool_call", "ls_tool_call", "read_lints_tool_call", "mcp_tool_call", "sem_search_tool_call", "create_plan_tool_call", "web_search_tool_call", "task_tool_call", "list_mcp_resources_tool_call", "read_mcp_resource_tool_call", "apply_agent_diff_tool_call", "ask_question_tool_call", "fetch_tool_call", "switch_mode_tool_call", "exa_search_tool_call", "exa_fetch_tool_call", "generate_image_tool_call", "record_screen_tool_call", "computer_use_tool_call", "write_shell_stdin_tool_call", "reflect_tool_call", "setup_vm_environment_tool_call", "truncated_tool_call", "start_grind_execution_tool_call", "start_grind_planning_tool_call", "pi_read_tool_call", "pi_bash_tool_call", "pi_edit_tool_call", "pi_write_tool_call", "pi_grep_tool_call", "pi_find_tool_call", "pi_ls_tool_call", "connect_scm_tool_call", "search_conversations_tool_call", "web_fetch_tool_call", "tool_call_id")
    SHELL_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    DELETE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    GLOB_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    GREP_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TODOS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_TODOS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    EDIT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    LS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_LINTS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SEM_SEARCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TASK_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    APPLY_AGENT_DIFF_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    FETCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    EXA_SEARCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    EXA_FETCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    GENERATE_IMAGE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    RECORD_SCREEN_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    REFLECT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SETUP_VM_ENVIRONMENT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    START_GRIND_EXECUTION_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    START_GRIND_PLANNING_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_READ_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_BASH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_EDIT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_WRITE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_GREP_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_FIND_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    PI_LS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    CONNECT_SCM_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SEARCH_CONVERSATIONS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    shell_tool_call: ShellToolCall
    delete_tool_call: DeleteToolCall
    glob_tool_call: GlobToolCall
    grep_tool_call: GrepToolCall
    read_tool_call: ReadToolCall
    update_todos_tool_call: UpdateTodosToolCall
    read_todos_tool_call: ReadTodosToolCall
    edit_tool_call: EditToolCall
    ls_tool_call: LsToolCall
    read_lints_tool_call: ReadLintsToolCall
    mcp_tool_call: McpToolCall
    sem_search_tool_call: SemSearchToolCall
    create_plan_tool_call: CreatePlanToolCall
    web_search_tool_call: WebSearchToolCall
    task_tool_call: TaskToolCall
    list_mcp_resources_tool_call: ListMcpResourcesToolCall
    read_mcp_resource_tool_call: ReadMcpResourceToolCall
    apply_agent_diff_tool_call: ApplyAgentDiffToolCall
    ask_question_tool_call: AskQuestionToolCall
    fetch_tool_call: FetchToolCall
    switch_mode_tool_call: SwitchModeToolCall
    exa_search_tool_call: ExaSearchToolCall
    exa_fetch_tool_call: ExaFetchToolCall
    generate_image_tool_call: GenerateImageToolCall
    record_screen_tool_call: RecordScreenToolCall
    computer_use_tool_call: ComputerUseToolCall
    write_shell_stdin_tool_call: WriteShellStdinToolCall
    reflect_tool_call: ReflectToolCall
    setup_vm_environment_tool_call: SetupVmEnvironmentToolCall
    truncated_tool_call: TruncatedToolCall
    start_grind_execution_tool_call: StartGrindExecutionToolCall
    start_grind_planning_tool_call: StartGrindPlanningToolCall
    pi_read_tool_call: PiReadToolCall
    pi_bash_tool_call: PiBashToolCall
    pi_edit_tool_call: PiEditToolCall
    pi_write_tool_call: PiWriteToolCall
    pi_grep_tool_call: PiGrepToolCall
    pi_find_tool_call: PiFindToolCall
    pi_ls_tool_call: PiLsToolCall
    connect_scm_tool_call: ConnectScmToolCall
    search_conversations_tool_call: SearchConversationsToolCall
    web_fetch_tool_call: FetchToolCall
    tool_call_id: str
    def __init__(self, shell_tool_call: _Optional[_Union[ShellToolCall, _Mapping]] = ..., delete_tool_call: _Optional[_Union[DeleteToolCall, _Mapping]] = ..., glob_tool_call: _Optional[_Union[GlobToolCall, _Mapping]] = ..., grep_tool_call: _Optional[_Union[GrepToolCall, _Mapping]] = ..., read_tool_call: _Optional[_Union[ReadToolCall, _Mapping]] = ..., update_todos_tool_call: _Optional[_Union[UpdateTodosToolCall, _Mapping]] = ..., read_todos_tool_call: _Optional[_Union[ReadTodosToolCall, _Mapping]] = ..., edit_tool_call: _Optional[_Union[EditToolCall, _Mapping]] = ..., ls_tool_call: _Optional[_Union[LsToolCall, _Mapping]] = ..., read_lints_tool_call: _Optional[_Union[ReadLintsToolCall, _Mapping]] = ..., mcp_tool_call: _Optional[_Union[McpToolCall, _Mapping]] = ..., sem_search_tool_call: _Optional[_Union[SemSearchToolCall, _Mapping]] = ..., create_plan_tool_call: _Optional[_Union[CreatePlanToolCall, _Mapping]] = ..., web_search_tool_call: _Optional[_Union[WebSearchToolCall, _Mapping]] = ..., task_tool_call: _Optional[_Union[TaskToolCall, _Mapping]] = ..., list_mcp_resources_tool_call: _Optional[_Union[ListMcpResourcesToolCall, _Mapping]] = ..., read_mcp_resource_tool_call: _Optional[_Union[ReadMcpResourceToolCall, _Mapping]] = ..., apply_agent_diff_tool_call: _Optional[_Union[ApplyAgentDiffToolCall, _Mapping]] = ..., ask_question_tool_call: _Optional[_Union[AskQuestionToolCall, _Mapping]] = ..., fetch_tool_call: _Optional[_Union[FetchToolCall, _Mapping]] = ..., switch_mode_tool_call: _Optional[_Union[SwitchModeToolCall, _Mapping]] = ..., exa_search_tool_call: _Optional[_Union[ExaSearchToolCall, _Mapping]] = ..., exa_fetch_tool_call: _Optional[_Union[ExaFetchToolCall, _Mapping]] = ..., generate_image_tool_call: _Optional[_Union[GenerateImageToolCall, _Mapping]] = ..., record_screen_tool_call: _Optional[_Union[RecordScreenToolCall, _Mapping]] = ..., computer_use_tool_call: _Optional[_Union[ComputerUseToolCall, _Mapping]] = ..., write_shell_stdin_tool_call: _Optional[_Union[WriteShellStdinToolCall, _Mapping]] = ..., reflect_tool_call: _Optional[_Union[ReflectToolCall, _Mapping]] = ..., setup_vm_environment_tool_call: _Optional[_Union[SetupVmEnvironmentToolCall, _Mapping]] = ..., truncated_tool_call: _Optional[_Union[TruncatedToolCall, _Mapping]] = ..., start_grind_execution_tool_call: _Optional[_Union[StartGrindExecutionToolCall, _Mapping]] = ..., start_grind_planning_tool_call: _Optional[_Union[StartGrindPlanningToolCall, _Mapping]] = ..., pi_read_tool_call: _Optional[_Union[PiReadToolCall, _Mapping]] = ..., pi_bash_tool_call: _Optional[_Union[PiBashToolCall, _Mapping]] = ..., pi_edit_tool_call: _Optional[_Union[PiEditToolCall, _Mapping]] = ..., pi_write_tool_call: _Optional[_Union[PiWriteToolCall, _Mapping]] = ..., pi_grep_tool_call: _Optional[_Union[PiGrepToolCall, _Mapping]] = ..., pi_find_tool_call: _Optional[_Union[PiFindToolCall, _Mapping]] = ..., pi_ls_tool_call: _Optional[_Union[PiLsToolCall, _Mapping]] = ..., connect_scm_tool_call: _Optional[_Union[ConnectScmToolCall, _Mapping]] = ..., search_conversations_tool_call: _Optional[_Union[SearchConversationsToolCall, _Mapping]] = ..., web_fetch_tool_call: _Optional[_Union[FetchToolCall, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class McpToolCall(_message.Message):
    __slots__ = ("args", "result", "description")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    args: McpArgs
    result: McpToolResult
    description: str
    def __init__(self, args: _Optional[_Union[McpArgs, _Mapping]] = ..., result: _Optional[_Union[McpToolResult, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class McpArgs(_message.Message):
    __slots__ = ("name", "args", "tool_call_id", "provider_identifier", "tool_name", "smart_mode_approval", "smart_mode_approval_only", "skip_approval", "server_identifier")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_ONLY_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SERVER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    name: str
    args: _containers.ScalarMap[str, bytes]
    tool_call_id: str
    provider_identifier: str
    tool_name: str
    smart_mode_approval: SmartModeApproval
    smart_mode_approval_only: bool
    skip_approval: bool
    server_identifier: str
    def __init__(self, name: _Optional[str] = ..., args: _Optional[_Mapping[str, bytes]] = ..., tool_call_id: _Optional[str] = ..., provider_identifier: _Optional[str] = ..., tool_name: _Optional[str] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., smart_mode_approval_only: _Optional[bool] = ..., skip_approval: _Optional[bool] = ..., server_identifier: _Optional[str] = ...) -> None: ...

class McpToolResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    success: McpSuccess
    error: McpToolError
    rejected: McpRejected
    permission_denied: McpPermissionDenied
    def __init__(self, success: _Optional[_Union[McpSuccess, _Mapping]] = ..., error: _Optional[_Union[McpToolError, _Mapping]] = ..., rejected: _Optional[_Union[McpRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[McpPermissionDenied, _Mapping]] = ...) -> None: ...

class McpSuccess(_message.Message):
    __slots__ = ("content", "is_error")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[McpToolResultContentItem]
    is_error: bool
    def __init__(self, content: _Optional[_Iterable[_Union[McpToolResultContentItem, _Mapping]]] = ..., is_error: _Optional[bool] = ...) -> None: ...

class McpToolResultContentItem(_message.Message):
    __slots__ = ("text", "image")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    text: McpTextContent
    image: McpImageContent
    def __init__(self, text: _Optional[_Union[McpTextContent, _Mapping]] = ..., image: _Optional[_Union[McpImageContent, _Mapping]] = ...) -> None: ...

class McpTextContent(_message.Message):
    __slots__ = ("text", "output_location")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    text: str
    output_location: OutputLocation
    def __init__(self, text: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ...) -> None: ...

class OutputLocation(_message.Message):
    __slots__ = ("file_path", "size_bytes", "line_count")
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    LINE_COUNT_FIELD_NUMBER: _ClassVar[int]
    file_path: str
    size_bytes: int
    line_count: int
    def __init__(self, file_path: _Optional[str] = ..., size_bytes: _Optional[int] = ..., line_count: _Optional[int] = ...) -> None: ...

class McpImageContent(_message.Message):
    __slots__ = ("data", "mime_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    mime_type: str
    def __init__(self, data: _Optional[bytes] = ..., mime_type: _Optional[str] = ...) -> None: ...

class McpToolError(_message.Message):
    __slots__ = ("error", "read_tool_def_reminder")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    READ_TOOL_DEF_REMINDER_FIELD_NUMBER: _ClassVar[int]
    error: str
    read_tool_def_reminder: str
    def __init__(self, error: _Optional[str] = ..., read_tool_def_reminder: _Optional[str] = ...) -> None: ...

class McpRejected(_message.Message):
    __slots__ = ("reason", "is_readonly")
    REASON_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    reason: str
    is_readonly: bool
    def __init__(self, reason: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class McpPermissionDenied(_message.Message):
    __slots__ = ("error", "is_readonly")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    error: str
    is_readonly: bool
    def __init__(self, error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class RequestContext(_message.Message):
    __slots__ = ("rules", "env", "repository_info", "tools", "conversation_notes_listing", "shared_notes_listing", "git_repos", "project_layouts", "mcp_instructions", "debug_mode_config", "cloud_rule", "web_search_enabled", "skill_options", "repository_info_should_query_prod", "file_contents", "user_intent_summary", "custom_subagents", "mcp_file_system_options")
    class FileContentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RULES_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_INFO_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_NOTES_LISTING_FIELD_NUMBER: _ClassVar[int]
    SHARED_NOTES_LISTING_FIELD_NUMBER: _ClassVar[int]
    GIT_REPOS_FIELD_NUMBER: _ClassVar[int]
    PROJECT_LAYOUTS_FIELD_NUMBER: _ClassVar[int]
    MCP_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    DEBUG_MODE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    CLOUD_RULE_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_ENABLED_FIELD_NUMBER: _ClassVar[int]
    SKILL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_INFO_SHOULD_QUERY_PROD_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    USER_INTENT_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    rules: _containers.RepeatedCompositeFieldContainer[CursorRule]
    env: RequestContextEnv
    repository_info: _containers.RepeatedCompositeFieldContainer[RepositoryIndexingInfo]
    tools: _containers.RepeatedCompositeFieldContainer[McpToolDefinition]
    conversation_notes_listing: str
    shared_notes_listing: str
    git_repos: _containers.RepeatedCompositeFieldContainer[GitRepoInfo]
    project_layouts: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode]
    mcp_instructions: _containers.RepeatedCompositeFieldContainer[McpInstructions]
    debug_mode_config: DebugModeConfig
    cloud_rule: str
    web_search_enabled: bool
    skill_options: SkillOptions
    repository_info_should_query_prod: bool
    file_contents: _containers.ScalarMap[str, str]
    user_intent_summary: str
    custom_subagents: _containers.RepeatedCompositeFieldContainer[CustomSubagent]
    mcp_file_system_options: McpFileSystemOptions
    def __init__(self, rules: _Optional[_Iterable[_Union[CursorRule, _Mapping]]] = ..., env: _Optional[_Union[RequestContextEnv, _Mapping]] = ..., repository_info: _Optional[_Iterable[_Union[RepositoryIndexingInfo, _Mapping]]] = ..., tools: _Optional[_Iterable[_Union[McpToolDefinition, _Mapping]]] = ..., conversation_notes_listing: _Optional[str] = ..., shared_notes_listing: _Optional[str] = ..., git_repos: _Optional[_Iterable[_Union[GitRepoInfo, _Mapping]]] = ..., project_layouts: _Optional[_Iterable[_Union[LsDirectoryTreeNode, _Mapping]]] = ..., mcp_instructions: _Optional[_Iterable[_Union[McpInstructions, _Mapping]]] = ..., debug_mode_config: _Optional[_Union[DebugModeConfig, _Mapping]] = ..., cloud_rule: _Optional[str] = ..., web_search_enabled: _Optional[bool] = ..., skill_options: _Optional[_Union[SkillOptions, _Mapping]] = ..., repository_info_should_query_prod: _Optional[bool] = ..., file_contents: _Optional[_Mapping[str, str]] = ..., user_intent_summary: _Optional[str] = ..., custom_subagents: _Optional[_Iterable[_Union[CustomSubagent, _Mapping]]] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ...) -> None: ...

class CursorRule(_message.Message):
    __slots__ = ("full_path", "content", "type", "source", "git_remote_origin", "parse_error")
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    GIT_REMOTE_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PARSE_ERROR_FIELD_NUMBER: _ClassVar[int]
    full_path: str
    content: str
    type: CursorRuleType
    source: int
    git_remote_origin: str
    parse_error: str
    def __init__(self, full_path: _Optional[str] = ..., content: _Optional[str] = ..., type: _Optional[_Union[CursorRuleType, _Mapping]] = ..., source: _Optional[int] = ..., git_remote_origin: _Optional[str] = ..., parse_error: _Optional[str] = ...) -> None: ...

class CursorRuleType(_message.Message):
    __slots__ = ("file_globbed", "agent_fetched", "manually_attached")
    GLOBAL_FIELD_NUMBER: _ClassVar[int]
    FILE_GLOBBED_FIELD_NUMBER: _ClassVar[int]
    AGENT_FETCHED_FIELD_NUMBER: _ClassVar[int]
    MANUALLY_ATTACHED_FIELD_NUMBER: _ClassVar[int]
    file_globbed: CursorRuleTypeFileGlobs
    agent_fetched: CursorRuleTypeAgentFetched
    manually_attached: CursorRuleTypeManuallyAttached
    def __init__(self, file_globbed: _Optional[_Union[CursorRuleTypeFileGlobs, _Mapping]] = ..., agent_fetched: _Optional[_Union[CursorRuleTypeAgentFetched, _Mapping]] = ..., manually_attached: _Optional[_Union[CursorRuleTypeManuallyAttached, _Mapping]] = ..., **kwargs) -> None: ...

class CursorRuleTypeGlobal(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CursorRuleTypeFileGlobs(_message.Message):
    __slots__ = ("globs",)
    GLOBS_FIELD_NUMBER: _ClassVar[int]
    globs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, globs: _Optional[_Iterable[str]] = ...) -> None: ...

class CursorRuleTypeAgentFetched(_message.Message):
    __slots__ = ("description",)
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    description: str
    def __init__(self, description: _Optional[str] = ...) -> None: ...

class CursorRuleTypeManuallyAttached(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class McpToolDefinition(_message.Message):
    __slots__ = ("name", "provider_identifier", "tool_name", "description", "input_schema", "input_schema_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    provider_identifier: str
    tool_name: str
    description: str
    input_schema: bytes
    input_schema_json: str
    def __init__(self, name: _Optional[str] = ..., provider_identifier: _Optional[str] = ..., tool_name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[bytes] = ..., input_schema_json: _Optional[str] = ...) -> None: ...

class InteractionUpdate(_message.Message):
    __slots__ = ("text_delta", "partial_tool_call", "tool_call_delta", "tool_call_started", "tool_call_completed", "thinking_delta", "thinking_completed", "user_message_appended", "token_delta", "summary", "summary_started", "summary_completed", "shell_output_delta", "heartbeat", "turn_ended", "step_started", "step_completed", "prompt_suggestion", "post_request_prompt", "active_branch_change", "feedback_request", "response_comparison", "context_injection_state", "routed_model")
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_STARTED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    THINKING_DELTA_FIELD_NUMBER: _ClassVar[int]
    THINKING_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_APPENDED_FIELD_NUMBER: _ClassVar[int]
    TOKEN_DELTA_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_STARTED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    SHELL_OUTPUT_DELTA_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_ENDED_FIELD_NUMBER: _ClassVar[int]
    STEP_STARTED_FIELD_NUMBER: _ClassVar[int]
    STEP_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PROMPT_SUGGESTION_FIELD_NUMBER: _ClassVar[int]
    POST_REQUEST_PROMPT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_BRANCH_CHANGE_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_REQUEST_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_COMPARISON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_INJECTION_STATE_FIELD_NUMBER: _ClassVar[int]
    ROUTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    text_delta: TextDeltaUpdate
    partial_tool_call: PartialToolCallUpdate
    tool_call_delta: ToolCallDeltaUpdate
    tool_call_started: ToolCallStartedUpdate
    tool_call_completed: ToolCallCompletedUpdate
    thinking_delta: ThinkingDeltaUpdate
    thinking_completed: ThinkingCompletedUpdate
    user_message_appended: UserMessageAppendedUpdate
    token_delta: TokenDeltaUpdate
    summary: SummaryUpdate
    summary_started: SummaryStartedUpdate
    summary_completed: SummaryCompletedUpdate
    shell_output_delta: ShellOutputDeltaUpdate
    heartbeat: HeartbeatUpdate
    turn_ended: TurnEndedUpdate
    step_started: StepStartedUpdate
    step_completed: StepCompletedUpdate
    prompt_suggestion: PromptSuggestionUpdate
    post_request_prompt: PostRequestPromptUpdate
    active_branch_change: ActiveBranchChangeUpdate
    feedback_request: FeedbackRequestUpdate
    response_comparison: ResponseComparisonUpdate
    context_injection_state: ContextInjectionStateUpdate
    routed_model: RoutedModelUpdate
    def __init__(self, text_delta: _Optional[_Union[TextDeltaUpdate, _Mapping]] = ..., partial_tool_call: _Optional[_Union[PartialToolCallUpdate, _Mapping]] = ..., tool_call_delta: _Optional[_Union[ToolCallDeltaUpdate, _Mapping]] = ..., tool_call_started: _Optional[_Union[ToolCallStartedUpdate, _Mapping]] = ..., tool_call_completed: _Optional[_Union[ToolCallCompletedUpdate, _Mapping]] = ..., thinking_delta: _Optional[_Union[ThinkingDeltaUpdate, _Mapping]] = ..., thinking_completed: _Optional[_Union[ThinkingCompletedUpdate, _Mapping]] = ..., user_message_appended: _Optional[_Union[UserMessageAppendedUpdate, _Mapping]] = ..., token_delta: _Optional[_Union[TokenDeltaUpdate, _Mapping]] = ..., summary: _Optional[_Union[SummaryUpdate, _Mapping]] = ..., summary_started: _Optional[_Union[SummaryStartedUpdate, _Mapping]] = ..., summary_completed: _Optional[_Union[SummaryCompletedUpdate, _Mapping]] = ..., shell_output_delta: _Optional[_Union[ShellOutputDeltaUpdate, _Mapping]] = ..., heartbeat: _Optional[_Union[HeartbeatUpdate, _Mapping]] = ..., turn_ended: _Optional[_Union[TurnEndedUpdate, _Mapping]] = ..., step_started: _Optional[_Union[StepStartedUpdate, _Mapping]] = ..., step_completed: _Optional[_Union[StepCompletedUpdate, _Mapping]] = ..., prompt_suggestion: _Optional[_Union[PromptSuggestionUpdate, _Mapping]] = ..., post_request_prompt: _Optional[_Union[PostRequestPromptUpdate, _Mapping]] = ..., active_branch_change: _Optional[_Union[ActiveBranchChangeUpdate, _Mapping]] = ..., feedback_request: _Optional[_Union[FeedbackRequestUpdate, _Mapping]] = ..., response_comparison: _Optional[_Union[ResponseComparisonUpdate, _Mapping]] = ..., context_injection_state: _Optional[_Union[ContextInjectionStateUpdate, _Mapping]] = ..., routed_model: _Optional[_Union[RoutedModelUpdate, _Mapping]] = ...) -> None: ...

class TextDeltaUpdate(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class PartialToolCallUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "args_text_delta", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ARGS_TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    args_text_delta: str
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., args_text_delta: _Optional[str] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ToolCallDeltaUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call_delta", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call_delta: ToolCallDelta
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call_delta: _Optional[_Union[ToolCallDelta, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ToolCallStartedUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ToolCallCompletedUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ThinkingDeltaUpdate(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ThinkingCompletedUpdate(_message.Message):
    __slots__ = ("thinking_duration_ms",)
    THINKING_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    thinking_duration_ms: int
    def __init__(self, thinking_duration_ms: _Optional[int] = ...) -> None: ...

class UserMessageAppendedUpdate(_message.Message):
    __slots__ = ("user_message",)
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ...) -> None: ...

class TokenDeltaUpdate(_message.Message):
    __slots__ = ("tokens",)
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    tokens: int
    def __init__(self, tokens: _Optional[int] = ...) -> None: ...

class SummaryUpdate(_message.Message):
    __slots__ = ("summary",)
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    summary: str
    def __init__(self, summary: _Optional[str] = ...) -> None: ...

class SummaryStartedUpdate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SummaryCompletedUpdate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellOutputDeltaUpdate(_message.Message):
    __slots__ = ("stdout", "stderr", "exit", "start")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    stdout: ShellStreamStdout
    stderr: ShellStreamStderr
    exit: ShellStreamExit
    start: ShellStreamStart
    def __init__(self, stdout: _Optional[_Union[ShellStreamStdout, _Mapping]] = ..., stderr: _Optional[_Union[ShellStreamStderr, _Mapping]] = ..., exit: _Optional[_Union[ShellStreamExit, _Mapping]] = ..., start: _Optional[_Union[ShellStreamStart, _Mapping]] = ...) -> None: ...

class ShellStreamStdout(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ShellStreamStderr(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ShellStreamExit(_message.Message):
    __slots__ = ("code", "cwd", "output_location", "aborted", "abort_reason", "local_execution_time_ms")
    CODE_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    ABORT_REASON_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    code: int
    cwd: str
    output_location: OutputLocation
    aborted: bool
    abort_reason: int
    local_execution_time_ms: int
    def __init__(self, code: _Optional[int] = ..., cwd: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., aborted: _Optional[bool] = ..., abort_reason: _Optional[int] = ..., local_execution_time_ms: _Optional[int] = ...) -> None: ...

class ShellStreamStart(_message.Message):
    __slots__ = ("sandbox_policy",)
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    sandbox_policy: SandboxPolicy
    def __init__(self, sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ...) -> None: ...

class HeartbeatUpdate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TurnEndedUpdate(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_READ_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cache_read_tokens: _Optional[int] = ..., cache_write_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ...) -> None: ...

class StepStartedUpdate(_message.Message):
    __slots__ = ("step_id",)
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    step_id: int
    def __init__(self, step_id: _Optional[int] = ...) -> None: ...

class StepCompletedUpdate(_message.Message):
    __slots__ = ("step_id", "step_duration_ms")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    step_id: int
    step_duration_ms: int
    def __init__(self, step_id: _Optional[int] = ..., step_duration_ms: _Optional[int] = ...) -> None: ...

class PromptSuggestionUpdate(_message.Message):
    __slots__ = ("suggestion",)
    SUGGESTION_FIELD_NUMBER: _ClassVar[int]
    suggestion: str
    def __init__(self, suggestion: _Optional[str] = ...) -> None: ...

class PostRequestPromptUpdate(_message.Message):
    __slots__ = ("prompt",)
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    def __init__(self, prompt: _Optional[str] = ...) -> None: ...

class ActiveBranchChangeUpdate(_message.Message):
    __slots__ = ("branch",)
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    branch: str
    def __init__(self, branch: _Optional[str] = ...) -> None: ...

class FeedbackRequestUpdate(_message.Message):
    __slots__ = ("question",)
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    question: str
    def __init__(self, question: _Optional[str] = ...) -> None: ...

class ResponseComparisonUpdate(_message.Message):
    __slots__ = ("comparison",)
    COMPARISON_FIELD_NUMBER: _ClassVar[int]
    comparison: str
    def __init__(self, comparison: _Optional[str] = ...) -> None: ...

class ContextInjectionStateUpdate(_message.Message):
    __slots__ = ("injection_id",)
    INJECTION_ID_FIELD_NUMBER: _ClassVar[int]
    injection_id: str
    def __init__(self, injection_id: _Optional[str] = ...) -> None: ...

class RoutedModelUpdate(_message.Message):
    __slots__ = ("model_id", "display_name")
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    display_name: str
    def __init__(self, model_id: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class KvServerMessage(_message.Message):
    __slots__ = ("id", "span_context", "get_blob_args", "set_blob_args")
    ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    GET_BLOB_ARGS_FIELD_NUMBER: _ClassVar[int]
    SET_BLOB_ARGS_FIELD_NUMBER: _ClassVar[int]
    id: int
    span_context: SpanContext
    get_blob_args: GetBlobArgs
    set_blob_args: SetBlobArgs
    def __init__(self, id: _Optional[int] = ..., span_context: _Optional[_Union[SpanContext, _Mapping]] = ..., get_blob_args: _Optional[_Union[GetBlobArgs, _Mapping]] = ..., set_blob_args: _Optional[_Union[SetBlobArgs, _Mapping]] = ...) -> None: ...

class SpanContext(_message.Message):
    __slots__ = ("trace_id", "span_id", "trace_flags", "trace_state")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_FLAGS_FIELD_NUMBER: _ClassVar[int]
    TRACE_STATE_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    span_id: str
    trace_flags: int
    trace_state: str
    def __init__(self, trace_id: _Optional[str] = ..., span_id: _Optional[str] = ..., trace_flags: _Optional[int] = ..., trace_state: _Optional[str] = ...) -> None: ...

class GetBlobArgs(_message.Message):
    __slots__ = ("blob_id",)
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    def __init__(self, blob_id: _Optional[bytes] = ...) -> None: ...

class SetBlobArgs(_message.Message):
    __slots__ = ("blob_id", "blob_data")
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    BLOB_DATA_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    blob_data: bytes
    def __init__(self, blob_id: _Optional[bytes] = ..., blob_data: _Optional[bytes] = ...) -> None: ...

class KvClientMessage(_message.Message):
    __slots__ = ("id", "get_blob_result", "set_blob_result")
    ID_FIELD_NUMBER: _ClassVar[int]
    GET_BLOB_RESULT_FIELD_NUMBER: _ClassVar[int]
    SET_BLOB_RESULT_FIELD_NUMBER: _ClassVar[int]
    id: int
    get_blob_result: GetBlobResult
    set_blob_result: SetBlobResult
    def __init__(self, id: _Optional[int] = ..., get_blob_result: _Optional[_Union[GetBlobResult, _Mapping]] = ..., set_blob_result: _Optional[_Union[SetBlobResult, _Mapping]] = ...) -> None: ...

class GetBlobResult(_message.Message):
    __slots__ = ("blob_data",)
    BLOB_DATA_FIELD_NUMBER: _ClassVar[int]
    blob_data: bytes
    def __init__(self, blob_data: _Optional[bytes] = ...) -> None: ...

class SetBlobResult(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: Error
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class ExecServerMessage(_message.Message):
    __slots__ = ("id", "exec_id", "span_context", "shell_args", "write_args", "delete_args", "grep_args", "read_args", "ls_args", "diagnostics_args", "request_context_args", "mcp_args", "shell_stream_args", "background_shell_spawn_args", "list_mcp_resources_exec_args", "read_mcp_resource_exec_args", "fetch_args", "record_screen_args", "computer_use_args", "write_shell_stdin_args", "redacted_read_args", "mcp_state_exec_args", "execute_hook_args", "subagent_args", "force_background_shell_args", "force_background_subagent_args", "subagent_await_args", "smart_mode_classifier_args", "canvas_diagnostics_args", "shell_allowlist_precheck_args", "mcp_allowlist_precheck_args", "web_fetch_allowlist_precheck_args", "git_diff_request", "pi_read_args", "pi_bash_args", "pi_edit_args", "pi_write_args", "pi_grep_args", "pi_find_args", "pi_ls_args", "mini_swe_agent_bash_args", "conversation_search_args", "agent_store_conflict_args", "accept_hook_additional_contexts")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SHELL_ARGS_FIELD_NUMBER: _ClassVar[int]
    WRITE_ARGS_FIELD_NUMBER: _ClassVar[int]
    DELETE_ARGS_FIELD_NUMBER: _ClassVar[int]
    GREP_ARGS_FIELD_NUMBER: _ClassVar[int]
    READ_ARGS_FIELD_NUMBER: _ClassVar[int]
    LS_ARGS_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_ARGS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_ARGS_FIELD_NUMBER: _ClassVar[int]
    MCP_ARGS_FIELD_NUMBER: _ClassVar[int]
    SHELL_STREAM_ARGS_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_SHELL_SPAWN_ARGS_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_EXEC_ARGS_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_EXEC_ARGS_FIELD_NUMBER: _ClassVar[int]
    FETCH_ARGS_FIELD_NUMBER: _ClassVar[int]
    RECORD_SCREEN_ARGS_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_ARGS_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_ARGS_FIELD_NUMBER: _ClassVar[int]
    REDACTED_READ_ARGS_FIELD_NUMBER: _ClassVar[int]
    MCP_STATE_EXEC_ARGS_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_HOOK_ARGS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_ARGS_FIELD_NUMBER: _ClassVar[int]
    FORCE_BACKGROUND_SHELL_ARGS_FIELD_NUMBER: _ClassVar[int]
    FORCE_BACKGROUND_SUBAGENT_ARGS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_AWAIT_ARGS_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_CLASSIFIER_ARGS_FIELD_NUMBER: _ClassVar[int]
    CANVAS_DIAGNOSTICS_ARGS_FIELD_NUMBER: _ClassVar[int]
    SHELL_ALLOWLIST_PRECHECK_ARGS_FIELD_NUMBER: _ClassVar[int]
    MCP_ALLOWLIST_PRECHECK_ARGS_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_ALLOWLIST_PRECHECK_ARGS_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_REQUEST_FIELD_NUMBER: _ClassVar[int]
    PI_READ_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_BASH_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_EDIT_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_WRITE_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_GREP_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_FIND_ARGS_FIELD_NUMBER: _ClassVar[int]
    PI_LS_ARGS_FIELD_NUMBER: _ClassVar[int]
    MINI_SWE_AGENT_BASH_ARGS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_SEARCH_ARGS_FIELD_NUMBER: _ClassVar[int]
    AGENT_STORE_CONFLICT_ARGS_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    id: int
    exec_id: str
    span_context: SpanContext
    shell_args: ShellArgs
    write_args: WriteArgs
    delete_args: DeleteArgs
    grep_args: GrepArgs
    read_args: ReadArgs
    ls_args: LsArgs
    diagnostics_args: DiagnosticsArgs
    request_context_args: RequestContextArgs
    mcp_args: McpArgs
    shell_stream_args: ShellArgs
    background_shell_spawn_args: BackgroundShellSpawnArgs
    list_mcp_resources_exec_args: ListMcpResourcesExecArgs
    read_mcp_resource_exec_args: ReadMcpResourceExecArgs
    fetch_args: FetchArgs
    record_screen_args: RecordScreenArgs
    computer_use_args: ComputerUseArgs
    write_shell_stdin_args: WriteShellStdinArgs
    redacted_read_args: ReadArgs
    mcp_state_exec_args: McpStateExecArgs
    execute_hook_args: ExecuteHookArgs
    subagent_args: SubagentArgs
    force_background_shell_args: ForceBackgroundShellArgs
    force_background_subagent_args: ForceBackgroundSubagentArgs
    subagent_await_args: SubagentAwaitArgs
    smart_mode_classifier_args: SmartModeClassifierArgs
    canvas_diagnostics_args: CanvasDiagnosticsArgs
    shell_allowlist_precheck_args: ShellAllowlistPrecheckArgs
    mcp_allowlist_precheck_args: McpAllowlistPrecheckArgs
    web_fetch_allowlist_precheck_args: WebFetchAllowlistPrecheckArgs
    git_diff_request: GetDiffRequest
    pi_read_args: PiReadExecArgs
    pi_bash_args: PiBashExecArgs
    pi_edit_args: PiEditExecArgs
    pi_write_args: PiWriteExecArgs
    pi_grep_args: PiGrepExecArgs
    pi_find_args: PiFindExecArgs
    pi_ls_args: PiLsExecArgs
    mini_swe_agent_bash_args: ShellArgs
    conversation_search_args: ConversationSearchArgs
    agent_store_conflict_args: AgentStoreConflictArgs
    accept_hook_additional_contexts: bool
    def __init__(self, id: _Optional[int] = ..., exec_id: _Optional[str] = ..., span_context: _Optional[_Union[SpanContext, _Mapping]] = ..., shell_args: _Optional[_Union[ShellArgs, _Mapping]] = ..., write_args: _Optional[_Union[WriteArgs, _Mapping]] = ..., delete_args: _Optional[_Union[DeleteArgs, _Mapping]] = ..., grep_args: _Optional[_Union[GrepArgs, _Mapping]] = ..., read_args: _Optional[_Union[ReadArgs, _Mapping]] = ..., ls_args: _Optional[_Union[LsArgs, _Mapping]] = ..., diagnostics_args: _Optional[_Union[DiagnosticsArgs, _Mapping]] = ..., request_context_args: _Optional[_Union[RequestContextArgs, _Mapping]] = ..., mcp_args: _Optional[_Union[McpArgs, _Mapping]] = ..., shell_stream_args: _Optional[_Union[ShellArgs, _Mapping]] = ..., background_shell_spawn_args: _Optional[_Union[BackgroundShellSpawnArgs, _Mapping]] = ..., list_mcp_resources_exec_args: _Optional[_Union[ListMcpResourcesExecArgs, _Mapping]] = ..., read_mcp_resource_exec_args: _Optional[_Union[ReadMcpResourceExecArgs, _Mapping]] = ..., fetch_args: _Optional[_Union[FetchArgs, _Mapping]] = ..., record_screen_args: _Optional[_Union[RecordScreenArgs, _Mapping]] = ..., computer_use_args: _Optional[_Union[ComputerUseArgs, _Mapping]] = ..., write_shell_stdin_args: _Optional[_Union[WriteShellStdinArgs, _Mapping]] = ..., redacted_read_args: _Optional[_Union[ReadArgs, _Mapping]] = ..., mcp_state_exec_args: _Optional[_Union[McpStateExecArgs, _Mapping]] = ..., execute_hook_args: _Optional[_Union[ExecuteHookArgs, _Mapping]] = ..., subagent_args: _Optional[_Union[SubagentArgs, _Mapping]] = ..., force_background_shell_args: _Optional[_Union[ForceBackgroundShellArgs, _Mapping]] = ..., force_background_subagent_args: _Optional[_Union[ForceBackgroundSubagentArgs, _Mapping]] = ..., subagent_await_args: _Optional[_Union[SubagentAwaitArgs, _Mapping]] = ..., smart_mode_classifier_args: _Optional[_Union[SmartModeClassifierArgs, _Mapping]] = ..., canvas_diagnostics_args: _Optional[_Union[CanvasDiagnosticsArgs, _Mapping]] = ..., shell_allowlist_precheck_args: _Optional[_Union[ShellAllowlistPrecheckArgs, _Mapping]] = ..., mcp_allowlist_precheck_args: _Optional[_Union[McpAllowlistPrecheckArgs, _Mapping]] = ..., web_fetch_allowlist_precheck_args: _Optional[_Union[WebFetchAllowlistPrecheckArgs, _Mapping]] = ..., git_diff_request: _Optional[_Union[GetDiffRequest, _Mapping]] = ..., pi_read_args: _Optional[_Union[PiReadExecArgs, _Mapping]] = ..., pi_bash_args: _Optional[_Union[PiBashExecArgs, _Mapping]] = ..., pi_edit_args: _Optional[_Union[PiEditExecArgs, _Mapping]] = ..., pi_write_args: _Optional[_Union[PiWriteExecArgs, _Mapping]] = ..., pi_grep_args: _Optional[_Union[PiGrepExecArgs, _Mapping]] = ..., pi_find_args: _Optional[_Union[PiFindExecArgs, _Mapping]] = ..., pi_ls_args: _Optional[_Union[PiLsExecArgs, _Mapping]] = ..., mini_swe_agent_bash_args: _Optional[_Union[ShellArgs, _Mapping]] = ..., conversation_search_args: _Optional[_Union[ConversationSearchArgs, _Mapping]] = ..., agent_store_conflict_args: _Optional[_Union[AgentStoreConflictArgs, _Mapping]] = ..., accept_hook_additional_contexts: _Optional[bool] = ...) -> None: ...

class ShellArgs(_message.Message):
    __slots__ = ("command", "working_directory", "timeout", "tool_call_id", "simple_commands", "has_input_redirect", "has_output_redirect", "parsing_result", "requested_sandbox_policy", "file_output_threshold_bytes", "is_background", "skip_approval", "timeout_behavior", "hard_timeout", "description", "classifier_result", "close_stdin", "output_notification", "smart_mode_approval", "hook_approval_requirement", "conversation_id")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SIMPLE_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    HAS_INPUT_REDIRECT_FIELD_NUMBER: _ClassVar[int]
    HAS_OUTPUT_REDIRECT_FIELD_NUMBER: _ClassVar[int]
    PARSING_RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    FILE_OUTPUT_THRESHOLD_BYTES_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    HARD_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    CLOSE_STDIN_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    HOOK_APPROVAL_REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    timeout: int
    tool_call_id: str
    simple_commands: _containers.RepeatedScalarFieldContainer[str]
    has_input_redirect: bool
    has_output_redirect: bool
    parsing_result: ShellCommandParsingResult
    requested_sandbox_policy: SandboxPolicy
    file_output_threshold_bytes: int
    is_background: bool
    skip_approval: bool
    timeout_behavior: int
    hard_timeout: int
    description: str
    classifier_result: CommandClassifierResult
    close_stdin: bool
    output_notification: ShellOutputNotificationConfig
    smart_mode_approval: SmartModeApproval
    hook_approval_requirement: ShellHookApprovalRequirement
    conversation_id: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., timeout: _Optional[int] = ..., tool_call_id: _Optional[str] = ..., simple_commands: _Optional[_Iterable[str]] = ..., has_input_redirect: _Optional[bool] = ..., has_output_redirect: _Optional[bool] = ..., parsing_result: _Optional[_Union[ShellCommandParsingResult, _Mapping]] = ..., requested_sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., file_output_threshold_bytes: _Optional[int] = ..., is_background: _Optional[bool] = ..., skip_approval: _Optional[bool] = ..., timeout_behavior: _Optional[int] = ..., hard_timeout: _Optional[int] = ..., description: _Optional[str] = ..., classifier_result: _Optional[_Union[CommandClassifierResult, _Mapping]] = ..., close_stdin: _Optional[bool] = ..., output_notification: _Optional[_Union[ShellOutputNotificationConfig, _Mapping]] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., hook_approval_requirement: _Optional[_Union[ShellHookApprovalRequirement, _Mapping]] = ..., conversation_id: _Optional[str] = ...) -> None: ...

class WriteArgs(_message.Message):
    __slots__ = ("path", "file_text", "tool_call_id", "return_file_content_after_write", "file_bytes", "encoding_hint")
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_FILE_CONTENT_AFTER_WRITE_FIELD_NUMBER: _ClassVar[int]
    FILE_BYTES_FIELD_NUMBER: _ClassVar[int]
    ENCODING_HINT_FIELD_NUMBER: _ClassVar[int]
    path: str
    file_text: str
    tool_call_id: str
    return_file_content_after_write: bool
    file_bytes: bytes
    encoding_hint: str
    def __init__(self, path: _Optional[str] = ..., file_text: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., return_file_content_after_write: _Optional[bool] = ..., file_bytes: _Optional[bytes] = ..., encoding_hint: _Optional[str] = ...) -> None: ...

class DeleteArgs(_message.Message):
    __slots__ = ("path", "tool_call_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class GrepArgs(_message.Message):
    __slots__ = ("pattern", "path", "glob", "output_mode", "context_before", "context_after", "context", "case_insensitive", "type", "head_limit", "multiline", "sort", "sort_ascending", "tool_call_id", "sandbox_policy", "offset")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    GLOB_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_AFTER_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CASE_INSENSITIVE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MULTILINE_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SORT_ASCENDING_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    glob: str
    output_mode: str
    context_before: int
    context_after: int
    context: int
    case_insensitive: bool
    type: str
    head_limit: int
    multiline: bool
    sort: str
    sort_ascending: bool
    tool_call_id: str
    sandbox_policy: SandboxPolicy
    offset: int
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., glob: _Optional[str] = ..., output_mode: _Optional[str] = ..., context_before: _Optional[int] = ..., context_after: _Optional[int] = ..., context: _Optional[int] = ..., case_insensitive: _Optional[bool] = ..., type: _Optional[str] = ..., head_limit: _Optional[int] = ..., multiline: _Optional[bool] = ..., sort: _Optional[str] = ..., sort_ascending: _Optional[bool] = ..., tool_call_id: _Optional[str] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., offset: _Optional[int] = ...) -> None: ...

class ReadArgs(_message.Message):
    __slots__ = ("path", "tool_call_id", "offset", "limit", "encoding_hint")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ENCODING_HINT_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    offset: int
    limit: int
    encoding_hint: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., encoding_hint: _Optional[str] = ...) -> None: ...

class LsArgs(_message.Message):
    __slots__ = ("path", "ignore", "tool_call_id", "sandbox_policy", "timeout_ms")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IGNORE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    path: str
    ignore: _containers.RepeatedScalarFieldContainer[str]
    tool_call_id: str
    sandbox_policy: SandboxPolicy
    timeout_ms: int
    def __init__(self, path: _Optional[str] = ..., ignore: _Optional[_Iterable[str]] = ..., tool_call_id: _Optional[str] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class DiagnosticsArgs(_message.Message):
    __slots__ = ("path", "tool_call_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class RequestContextArgs(_message.Message):
    __slots__ = ("notes_session_id", "workspace_id", "read_only_pinned_tree_sha", "read_only_plugin_cache_root", "use_cached")
    NOTES_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PINNED_TREE_SHA_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PLUGIN_CACHE_ROOT_FIELD_NUMBER: _ClassVar[int]
    USE_CACHED_FIELD_NUMBER: _ClassVar[int]
    notes_session_id: str
    workspace_id: str
    read_only_pinned_tree_sha: str
    read_only_plugin_cache_root: str
    use_cached: bool
    def __init__(self, notes_session_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., read_only_pinned_tree_sha: _Optional[str] = ..., read_only_plugin_cache_root: _Optional[str] = ..., use_cached: _Optional[bool] = ...) -> None: ...

class BackgroundShellSpawnArgs(_message.Message):
    __slots__ = ("command", "working_directory", "tool_call_id", "parsing_result", "sandbox_policy", "enable_write_shell_stdin_tool", "description", "classifier_result", "output_notification", "smart_mode_approval", "hook_approval_requirement", "skip_approval", "conversation_id")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PARSING_RESULT_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    ENABLE_WRITE_SHELL_STDIN_TOOL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    HOOK_APPROVAL_REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    tool_call_id: str
    parsing_result: ShellCommandParsingResult
    sandbox_policy: SandboxPolicy
    enable_write_shell_stdin_tool: bool
    description: str
    classifier_result: CommandClassifierResult
    output_notification: ShellOutputNotificationConfig
    smart_mode_approval: SmartModeApproval
    hook_approval_requirement: ShellHookApprovalRequirement
    skip_approval: bool
    conversation_id: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., parsing_result: _Optional[_Union[ShellCommandParsingResult, _Mapping]] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., enable_write_shell_stdin_tool: _Optional[bool] = ..., description: _Optional[str] = ..., classifier_result: _Optional[_Union[CommandClassifierResult, _Mapping]] = ..., output_notification: _Optional[_Union[ShellOutputNotificationConfig, _Mapping]] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., hook_approval_requirement: _Optional[_Union[ShellHookApprovalRequirement, _Mapping]] = ..., skip_approval: _Optional[bool] = ..., conversation_id: _Optional[str] = ...) -> None: ...

class ListMcpResourcesExecArgs(_message.Message):
    __slots__ = ("server",)
    SERVER_FIELD_NUMBER: _ClassVar[int]
    server: str
    def __init__(self, server: _Optional[str] = ...) -> None: ...

class ReadMcpResourceExecArgs(_message.Message):
    __slots__ = ("server", "uri", "download_path", "tool_call_id", "smart_mode_approval")
    SERVER_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    server: str
    uri: str
    download_path: str
    tool_call_id: str
    smart_mode_approval: SmartModeApproval
    def __init__(self, server: _Optional[str] = ..., uri: _Optional[str] = ..., download_path: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ...) -> None: ...

class FetchArgs(_message.Message):
    __slots__ = ("url", "tool_call_id")
    URL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    url: str
    tool_call_id: str
    def __init__(self, url: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class RecordScreenArgs(_message.Message):
    __slots__ = ("mode", "tool_call_id", "save_as_filename")
    MODE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SAVE_AS_FILENAME_FIELD_NUMBER: _ClassVar[int]
    mode: int
    tool_call_id: str
    save_as_filename: str
    def __init__(self, mode: _Optional[int] = ..., tool_call_id: _Optional[str] = ..., save_as_filename: _Optional[str] = ...) -> None: ...

class ComputerUseArgs(_message.Message):
    __slots__ = ("tool_call_id", "actions")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    actions: _containers.RepeatedCompositeFieldContainer[ComputerUseAction]
    def __init__(self, tool_call_id: _Optional[str] = ..., actions: _Optional[_Iterable[_Union[ComputerUseAction, _Mapping]]] = ...) -> None: ...

class WriteShellStdinArgs(_message.Message):
    __slots__ = ("shell_id", "chars")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    CHARS_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    chars: str
    def __init__(self, shell_id: _Optional[int] = ..., chars: _Optional[str] = ...) -> None: ...

class McpStateExecArgs(_message.Message):
    __slots__ = ("server_identifiers", "kick_only")
    SERVER_IDENTIFIERS_FIELD_NUMBER: _ClassVar[int]
    KICK_ONLY_FIELD_NUMBER: _ClassVar[int]
    server_identifiers: _containers.RepeatedScalarFieldContainer[str]
    kick_only: bool
    def __init__(self, server_identifiers: _Optional[_Iterable[str]] = ..., kick_only: _Optional[bool] = ...) -> None: ...

class ExecuteHookArgs(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: ExecuteHookRequest
    def __init__(self, request: _Optional[_Union[ExecuteHookRequest, _Mapping]] = ...) -> None: ...

class ExecuteHookRequest(_message.Message):
    __slots__ = ("pre_compact", "subagent_start", "subagent_stop", "pre_tool_use", "post_tool_use", "post_tool_use_failure", "before_submit_prompt", "after_agent_response", "after_agent_thought", "stop")
    PRE_COMPACT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_START_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_STOP_FIELD_NUMBER: _ClassVar[int]
    PRE_TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    POST_TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    POST_TOOL_USE_FAILURE_FIELD_NUMBER: _ClassVar[int]
    BEFORE_SUBMIT_PROMPT_FIELD_NUMBER: _ClassVar[int]
    AFTER_AGENT_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    AFTER_AGENT_THOUGHT_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    pre_compact: PreCompactRequestQuery
    subagent_start: SubagentStartRequestQuery
    subagent_stop: SubagentStopRequestQuery
    pre_tool_use: PreToolUseRequestQuery
    post_tool_use: PostToolUseRequestQuery
    post_tool_use_failure: PostToolUseFailureRequestQuery
    before_submit_prompt: BeforeSubmitPromptRequestQuery
    after_agent_response: AfterAgentResponseRequestQuery
    after_agent_thought: AfterAgentThoughtRequestQuery
    stop: StopRequestQuery
    def __init__(self, pre_compact: _Optional[_Union[PreCompactRequestQuery, _Mapping]] = ..., subagent_start: _Optional[_Union[SubagentStartRequestQuery, _Mapping]] = ..., subagent_stop: _Optional[_Union[SubagentStopRequestQuery, _Mapping]] = ..., pre_tool_use: _Optional[_Union[PreToolUseRequestQuery, _Mapping]] = ..., post_tool_use: _Optional[_Union[PostToolUseRequestQuery, _Mapping]] = ..., post_tool_use_failure: _Optional[_Union[PostToolUseFailureRequestQuery, _Mapping]] = ..., before_submit_prompt: _Optional[_Union[BeforeSubmitPromptRequestQuery, _Mapping]] = ..., after_agent_response: _Optional[_Union[AfterAgentResponseRequestQuery, _Mapping]] = ..., after_agent_thought: _Optional[_Union[AfterAgentThoughtRequestQuery, _Mapping]] = ..., stop: _Optional[_Union[StopRequestQuery, _Mapping]] = ...) -> None: ...

class SubagentArgs(_message.Message):
    __slots__ = ("tool_call_id", "subagent_type", "prompt")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    subagent_type: str
    prompt: str
    def __init__(self, tool_call_id: _Optional[str] = ..., subagent_type: _Optional[str] = ..., prompt: _Optional[str] = ...) -> None: ...

class ForceBackgroundShellArgs(_message.Message):
    __slots__ = ("tool_call_id",)
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    def __init__(self, tool_call_id: _Optional[str] = ...) -> None: ...

class ForceBackgroundSubagentArgs(_message.Message):
    __slots__ = ("tool_call_id",)
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    def __init__(self, tool_call_id: _Optional[str] = ...) -> None: ...

class SubagentAwaitArgs(_message.Message):
    __slots__ = ("agent_id", "timeout_ms")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    timeout_ms: int
    def __init__(self, agent_id: _Optional[str] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class SmartModeClassifierArgs(_message.Message):
    __slots__ = ("tool_call_id", "parent_conversation_id", "target", "conversation_context")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    parent_conversation_id: str
    target: SmartModeRiskTarget
    conversation_context: _containers.RepeatedCompositeFieldContainer[SmartModeClassifierConversationMessage]
    def __init__(self, tool_call_id: _Optional[str] = ..., parent_conversation_id: _Optional[str] = ..., target: _Optional[_Union[SmartModeRiskTarget, _Mapping]] = ..., conversation_context: _Optional[_Iterable[_Union[SmartModeClassifierConversationMessage, _Mapping]]] = ...) -> None: ...

class CanvasDiagnosticsArgs(_message.Message):
    __slots__ = ("path", "tool_call_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class ShellAllowlistPrecheckArgs(_message.Message):
    __slots__ = ("command", "working_directory", "parsing_result", "classifier_result", "tool_call_id")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PARSING_RESULT_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    parsing_result: ShellCommandParsingResult
    classifier_result: CommandClassifierResult
    tool_call_id: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., parsing_result: _Optional[_Union[ShellCommandParsingResult, _Mapping]] = ..., classifier_result: _Optional[_Union[CommandClassifierResult, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class McpAllowlistPrecheckArgs(_message.Message):
    __slots__ = ("provider_identifier", "tool_name", "tool_call_id")
    PROVIDER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    provider_identifier: str
    tool_name: str
    tool_call_id: str
    def __init__(self, provider_identifier: _Optional[str] = ..., tool_name: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class WebFetchAllowlistPrecheckArgs(_message.Message):
    __slots__ = ("url", "tool_call_id")
    URL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    url: str
    tool_call_id: str
    def __init__(self, url: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class GetDiffRequest(_message.Message):
    __slots__ = ("cwd", "ref", "base_ref", "merge_base", "target_paths", "unified_context_lines", "max_untracked_files", "submodule_recurse_depth", "include_space_changes", "committed_only", "compute_patch_id", "return_head_sha", "max_response_bytes", "output_format")
    CWD_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    BASE_REF_FIELD_NUMBER: _ClassVar[int]
    MERGE_BASE_FIELD_NUMBER: _ClassVar[int]
    TARGET_PATHS_FIELD_NUMBER: _ClassVar[int]
    UNIFIED_CONTEXT_LINES_FIELD_NUMBER: _ClassVar[int]
    MAX_UNTRACKED_FILES_FIELD_NUMBER: _ClassVar[int]
    SUBMODULE_RECURSE_DEPTH_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SPACE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_ONLY_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_PATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_HEAD_SHA_FIELD_NUMBER: _ClassVar[int]
    MAX_RESPONSE_BYTES_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FORMAT_FIELD_NUMBER: _ClassVar[int]
    cwd: str
    ref: str
    base_ref: str
    merge_base: bool
    target_paths: _containers.RepeatedScalarFieldContainer[str]
    unified_context_lines: int
    max_untracked_files: int
    submodule_recurse_depth: int
    include_space_changes: bool
    committed_only: bool
    compute_patch_id: bool
    return_head_sha: bool
    max_response_bytes: int
    output_format: GetDiffRequest_OutputFormat
    def __init__(self, cwd: _Optional[str] = ..., ref: _Optional[str] = ..., base_ref: _Optional[str] = ..., merge_base: _Optional[bool] = ..., target_paths: _Optional[_Iterable[str]] = ..., unified_context_lines: _Optional[int] = ..., max_untracked_files: _Optional[int] = ..., submodule_recurse_depth: _Optional[int] = ..., include_space_changes: _Optional[bool] = ..., committed_only: _Optional[bool] = ..., compute_patch_id: _Optional[bool] = ..., return_head_sha: _Optional[bool] = ..., max_response_bytes: _Optional[int] = ..., output_format: _Optional[_Union[GetDiffRequest_OutputFormat, str]] = ...) -> None: ...

class PiReadExecArgs(_message.Message):
    __slots__ = ("path", "offset", "limit")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    path: str
    offset: int
    limit: int
    def __init__(self, path: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class PiBashExecArgs(_message.Message):
    __slots__ = ("command", "timeout")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    command: str
    timeout: float
    def __init__(self, command: _Optional[str] = ..., timeout: _Optional[float] = ...) -> None: ...

class PiEditExecArgs(_message.Message):
    __slots__ = ("path", "edits")
    PATH_FIELD_NUMBER: _ClassVar[int]
    EDITS_FIELD_NUMBER: _ClassVar[int]
    path: str
    edits: _containers.RepeatedCompositeFieldContainer[PiEditReplacement]
    def __init__(self, path: _Optional[str] = ..., edits: _Optional[_Iterable[_Union[PiEditReplacement, _Mapping]]] = ...) -> None: ...

class PiEditReplacement(_message.Message):
    __slots__ = ("old_text", "new_text")
    OLD_TEXT_FIELD_NUMBER: _ClassVar[int]
    NEW_TEXT_FIELD_NUMBER: _ClassVar[int]
    old_text: str
    new_text: str
    def __init__(self, old_text: _Optional[str] = ..., new_text: _Optional[str] = ...) -> None: ...

class PiWriteExecArgs(_message.Message):
    __slots__ = ("path", "content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    content: str
    def __init__(self, path: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class PiGrepExecArgs(_message.Message):
    __slots__ = ("pattern", "path", "glob", "ignore_case", "literal", "context", "limit")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    GLOB_FIELD_NUMBER: _ClassVar[int]
    IGNORE_CASE_FIELD_NUMBER: _ClassVar[int]
    LITERAL_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    glob: str
    ignore_case: bool
    literal: bool
    context: int
    limit: int
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., glob: _Optional[str] = ..., ignore_case: _Optional[bool] = ..., literal: _Optional[bool] = ..., context: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class PiFindExecArgs(_message.Message):
    __slots__ = ("pattern", "path", "limit")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    limit: int
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class PiLsExecArgs(_message.Message):
    __slots__ = ("path", "limit")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    path: str
    limit: int
    def __init__(self, path: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ConversationSearchArgs(_message.Message):
    __slots__ = ("query", "tool_call_id", "limit")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    query: str
    tool_call_id: str
    limit: int
    def __init__(self, query: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class AgentStoreConflictArgs(_message.Message):
    __slots__ = ("cursor", "advance")
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_FIELD_NUMBER: _ClassVar[int]
    cursor: AgentStoreConflictCursor
    advance: bool
    def __init__(self, cursor: _Optional[_Union[AgentStoreConflictCursor, _Mapping]] = ..., advance: _Optional[bool] = ...) -> None: ...

class AgentStoreConflictCursor(_message.Message):
    __slots__ = ("journal_epoch", "seq", "last_event_id")
    JOURNAL_EPOCH_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    journal_epoch: str
    seq: int
    last_event_id: str
    def __init__(self, journal_epoch: _Optional[str] = ..., seq: _Optional[int] = ..., last_event_id: _Optional[str] = ...) -> None: ...

class ExecClientMessage(_message.Message):
    __slots__ = ("id", "exec_id", "shell_result", "write_result", "delete_result", "grep_result", "read_result", "ls_result", "diagnostics_result", "request_context_result", "mcp_result", "shell_stream", "background_shell_spawn_result", "list_mcp_resources_exec_result", "read_mcp_resource_exec_result", "fetch_result", "record_screen_result", "computer_use_result", "write_shell_stdin_result", "redacted_read_result", "mcp_state_exec_result", "execute_hook_result", "subagent_result", "force_background_shell_result", "force_background_subagent_result", "subagent_await_result", "smart_mode_classifier_result", "canvas_diagnostics_result", "shell_allowlist_precheck_result", "mcp_allowlist_precheck_result", "web_fetch_allowlist_precheck_result", "git_diff_response", "pi_read_result", "pi_bash_result", "pi_edit_result", "pi_write_result", "pi_grep_result", "pi_find_result", "pi_ls_result", "conversation_search_result", "agent_store_conflict_result", "mini_swe_agent_bash_result", "local_execution_time_ms", "hook_additional_contexts")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    SHELL_RESULT_FIELD_NUMBER: _ClassVar[int]
    WRITE_RESULT_FIELD_NUMBER: _ClassVar[int]
    DELETE_RESULT_FIELD_NUMBER: _ClassVar[int]
    GREP_RESULT_FIELD_NUMBER: _ClassVar[int]
    READ_RESULT_FIELD_NUMBER: _ClassVar[int]
    LS_RESULT_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_RESULT_FIELD_NUMBER: _ClassVar[int]
    MCP_RESULT_FIELD_NUMBER: _ClassVar[int]
    SHELL_STREAM_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_SHELL_SPAWN_RESULT_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_EXEC_RESULT_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_EXEC_RESULT_FIELD_NUMBER: _ClassVar[int]
    FETCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    RECORD_SCREEN_RESULT_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_RESULT_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_RESULT_FIELD_NUMBER: _ClassVar[int]
    REDACTED_READ_RESULT_FIELD_NUMBER: _ClassVar[int]
    MCP_STATE_EXEC_RESULT_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_HOOK_RESULT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_RESULT_FIELD_NUMBER: _ClassVar[int]
    FORCE_BACKGROUND_SHELL_RESULT_FIELD_NUMBER: _ClassVar[int]
    FORCE_BACKGROUND_SUBAGENT_RESULT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_AWAIT_RESULT_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    CANVAS_DIAGNOSTICS_RESULT_FIELD_NUMBER: _ClassVar[int]
    SHELL_ALLOWLIST_PRECHECK_RESULT_FIELD_NUMBER: _ClassVar[int]
    MCP_ALLOWLIST_PRECHECK_RESULT_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_ALLOWLIST_PRECHECK_RESULT_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    PI_READ_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_BASH_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_EDIT_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_WRITE_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_GREP_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_FIND_RESULT_FIELD_NUMBER: _ClassVar[int]
    PI_LS_RESULT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_SEARCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    AGENT_STORE_CONFLICT_RESULT_FIELD_NUMBER: _ClassVar[int]
    MINI_SWE_AGENT_BASH_RESULT_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    id: int
    exec_id: str
    shell_result: ShellResult
    write_result: WriteResult
    delete_result: DeleteResult
    grep_result: GrepResult
    read_result: ReadResult
    ls_result: LsResult
    diagnostics_result: DiagnosticsResult
    request_context_result: RequestContextResult
    mcp_result: McpResult
    shell_stream: ShellStream
    background_shell_spawn_result: BackgroundShellSpawnResult
    list_mcp_resources_exec_result: ListMcpResourcesExecResult
    read_mcp_resource_exec_result: ReadMcpResourceExecResult
    fetch_result: FetchResult
    record_screen_result: RecordScreenResult
    computer_use_result: ComputerUseResult
    write_shell_stdin_result: WriteShellStdinResult
    redacted_read_result: ReadResult
    mcp_state_exec_result: McpStateExecResult
    execute_hook_result: ExecuteHookResult
    subagent_result: SubagentResult
    force_background_shell_result: ForceBackgroundShellResult
    force_background_subagent_result: ForceBackgroundSubagentResult
    subagent_await_result: SubagentAwaitResult
    smart_mode_classifier_result: SmartModeClassifierResult
    canvas_diagnostics_result: CanvasDiagnosticsResult
    shell_allowlist_precheck_result: ShellAllowlistPrecheckResult
    mcp_allowlist_precheck_result: McpAllowlistPrecheckResult
    web_fetch_allowlist_precheck_result: WebFetchAllowlistPrecheckResult
    git_diff_response: GetDiffResponse
    pi_read_result: PiReadExecResult
    pi_bash_result: PiBashExecResult
    pi_edit_result: PiEditExecResult
    pi_write_result: PiWriteExecResult
    pi_grep_result: PiGrepExecResult
    pi_find_result: PiFindExecResult
    pi_ls_result: PiLsExecResult
    conversation_search_result: ConversationSearchResult
    agent_store_conflict_result: AgentStoreConflictResult
    mini_swe_agent_bash_result: ShellResult
    local_execution_time_ms: int
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    def __init__(self, id: _Optional[int] = ..., exec_id: _Optional[str] = ..., shell_result: _Optional[_Union[ShellResult, _Mapping]] = ..., write_result: _Optional[_Union[WriteResult, _Mapping]] = ..., delete_result: _Optional[_Union[DeleteResult, _Mapping]] = ..., grep_result: _Optional[_Union[GrepResult, _Mapping]] = ..., read_result: _Optional[_Union[ReadResult, _Mapping]] = ..., ls_result: _Optional[_Union[LsResult, _Mapping]] = ..., diagnostics_result: _Optional[_Union[DiagnosticsResult, _Mapping]] = ..., request_context_result: _Optional[_Union[RequestContextResult, _Mapping]] = ..., mcp_result: _Optional[_Union[McpResult, _Mapping]] = ..., shell_stream: _Optional[_Union[ShellStream, _Mapping]] = ..., background_shell_spawn_result: _Optional[_Union[BackgroundShellSpawnResult, _Mapping]] = ..., list_mcp_resources_exec_result: _Optional[_Union[ListMcpResourcesExecResult, _Mapping]] = ..., read_mcp_resource_exec_result: _Optional[_Union[ReadMcpResourceExecResult, _Mapping]] = ..., fetch_result: _Optional[_Union[FetchResult, _Mapping]] = ..., record_screen_result: _Optional[_Union[RecordScreenResult, _Mapping]] = ..., computer_use_result: _Optional[_Union[ComputerUseResult, _Mapping]] = ..., write_shell_stdin_result: _Optional[_Union[WriteShellStdinResult, _Mapping]] = ..., redacted_read_result: _Optional[_Union[ReadResult, _Mapping]] = ..., mcp_state_exec_result: _Optional[_Union[McpStateExecResult, _Mapping]] = ..., execute_hook_result: _Optional[_Union[ExecuteHookResult, _Mapping]] = ..., subagent_result: _Optional[_Union[SubagentResult, _Mapping]] = ..., force_background_shell_result: _Optional[_Union[ForceBackgroundShellResult, _Mapping]] = ..., force_background_subagent_result: _Optional[_Union[ForceBackgroundSubagentResult, _Mapping]] = ..., subagent_await_result: _Optional[_Union[SubagentAwaitResult, _Mapping]] = ..., smart_mode_classifier_result: _Optional[_Union[SmartModeClassifierResult, _Mapping]] = ..., canvas_diagnostics_result: _Optional[_Union[CanvasDiagnosticsResult, _Mapping]] = ..., shell_allowlist_precheck_result: _Optional[_Union[ShellAllowlistPrecheckResult, _Mapping]] = ..., mcp_allowlist_precheck_result: _Optional[_Union[McpAllowlistPrecheckResult, _Mapping]] = ..., web_fetch_allowlist_precheck_result: _Optional[_Union[WebFetchAllowlistPrecheckResult, _Mapping]] = ..., git_diff_response: _Optional[_Union[GetDiffResponse, _Mapping]] = ..., pi_read_result: _Optional[_Union[PiReadExecResult, _Mapping]] = ..., pi_bash_result: _Optional[_Union[PiBashExecResult, _Mapping]] = ..., pi_edit_result: _Optional[_Union[PiEditExecResult, _Mapping]] = ..., pi_write_result: _Optional[_Union[PiWriteExecResult, _Mapping]] = ..., pi_grep_result: _Optional[_Union[PiGrepExecResult, _Mapping]] = ..., pi_find_result: _Optional[_Union[PiFindExecResult, _Mapping]] = ..., pi_ls_result: _Optional[_Union[PiLsExecResult, _Mapping]] = ..., conversation_search_result: _Optional[_Union[ConversationSearchResult, _Mapping]] = ..., agent_store_conflict_result: _Optional[_Union[AgentStoreConflictResult, _Mapping]] = ..., mini_swe_agent_bash_result: _Optional[_Union[ShellResult, _Mapping]] = ..., local_execution_time_ms: _Optional[int] = ..., hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ...) -> None: ...

class ShellResult(_message.Message):
    __slots__ = ("sandbox_policy", "is_background", "terminals_folder", "pid", "success", "failure", "timeout", "rejected", "spawn_error", "permission_denied")
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FOLDER_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    SPAWN_ERROR_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    sandbox_policy: SandboxPolicy
    is_background: bool
    terminals_folder: str
    pid: int
    success: ShellSuccess
    failure: ShellFailure
    timeout: ShellTimeout
    rejected: ShellRejected
    spawn_error: ShellSpawnError
    permission_denied: ShellPermissionDenied
    def __init__(self, sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., is_background: _Optional[bool] = ..., terminals_folder: _Optional[str] = ..., pid: _Optional[int] = ..., success: _Optional[_Union[ShellSuccess, _Mapping]] = ..., failure: _Optional[_Union[ShellFailure, _Mapping]] = ..., timeout: _Optional[_Union[ShellTimeout, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., spawn_error: _Optional[_Union[ShellSpawnError, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ...) -> None: ...

class ShellSuccess(_message.Message):
    __slots__ = ("command", "working_directory", "exit_code", "signal", "stdout", "stderr", "execution_time", "output_location", "shell_id", "interleaved_output", "pid", "ms_to_wait", "local_execution_time_ms", "background_reason", "output_head", "output_tail", "elided_chars")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_TIME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    INTERLEAVED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    MS_TO_WAIT_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_REASON_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_HEAD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    ELIDED_CHARS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    exit_code: int
    signal: str
    stdout: str
    stderr: str
    execution_time: int
    output_location: OutputLocation
    shell_id: int
    interleaved_output: str
    pid: int
    ms_to_wait: int
    local_execution_time_ms: int
    background_reason: ShellBackgroundReason
    output_head: str
    output_tail: str
    elided_chars: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., execution_time: _Optional[int] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., shell_id: _Optional[int] = ..., interleaved_output: _Optional[str] = ..., pid: _Optional[int] = ..., ms_to_wait: _Optional[int] = ..., local_execution_time_ms: _Optional[int] = ..., background_reason: _Optional[_Union[ShellBackgroundReason, str]] = ..., output_head: _Optional[str] = ..., output_tail: _Optional[str] = ..., elided_chars: _Optional[int] = ...) -> None: ...

class ShellFailure(_message.Message):
    __slots__ = ("command", "working_directory", "exit_code", "signal", "stdout", "stderr", "execution_time", "output_location", "interleaved_output", "abort_reason", "aborted", "local_execution_time_ms", "output_head", "output_tail", "elided_chars")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_TIME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    INTERLEAVED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ABORT_REASON_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_HEAD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    ELIDED_CHARS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    exit_code: int
    signal: str
    stdout: str
    stderr: str
    execution_time: int
    output_location: OutputLocation
    interleaved_output: str
    abort_reason: int
    aborted: bool
    local_execution_time_ms: int
    output_head: str
    output_tail: str
    elided_chars: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., execution_time: _Optional[int] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., interleaved_output: _Optional[str] = ..., abort_reason: _Optional[int] = ..., aborted: _Optional[bool] = ..., local_execution_time_ms: _Optional[int] = ..., output_head: _Optional[str] = ..., output_tail: _Optional[str] = ..., elided_chars: _Optional[int] = ...) -> None: ...

class ShellTimeout(_message.Message):
    __slots__ = ("command", "working_directory", "timeout_ms")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    timeout_ms: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class ShellRejected(_message.Message):
    __slots__ = ("command", "working_directory", "reason", "is_readonly")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    reason: str
    is_readonly: bool
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., reason: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class ShellSpawnError(_message.Message):
    __slots__ = ("command", "working_directory", "error")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ShellPermissionDenied(_message.Message):
    __slots__ = ("command", "working_directory", "error", "is_readonly")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    is_readonly: bool
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class WriteResult(_message.Message):
    __slots__ = ("success", "permission_denied", "no_space", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    NO_SPACE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: WriteSuccess
    permission_denied: WritePermissionDenied
    no_space: WriteNoSpace
    error: WriteError
    rejected: WriteRejected
    def __init__(self, success: _Optional[_Union[WriteSuccess, _Mapping]] = ..., permission_denied: _Optional[_Union[WritePermissionDenied, _Mapping]] = ..., no_space: _Optional[_Union[WriteNoSpace, _Mapping]] = ..., error: _Optional[_Union[WriteError, _Mapping]] = ..., rejected: _Optional[_Union[WriteRejected, _Mapping]] = ...) -> None: ...

class WriteSuccess(_message.Message):
    __slots__ = ("path", "lines_created", "file_size", "file_content_after_write")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINES_CREATED_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENT_AFTER_WRITE_FIELD_NUMBER: _ClassVar[int]
    path: str
    lines_created: int
    file_size: int
    file_content_after_write: str
    def __init__(self, path: _Optional[str] = ..., lines_created: _Optional[int] = ..., file_size: _Optional[int] = ..., file_content_after_write: _Optional[str] = ...) -> None: ...

class WritePermissionDenied(_message.Message):
    __slots__ = ("path", "directory", "operation", "error", "is_readonly")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    directory: str
    operation: str
    error: str
    is_readonly: bool
    def __init__(self, path: _Optional[str] = ..., directory: _Optional[str] = ..., operation: _Optional[str] = ..., error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class WriteNoSpace(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class WriteError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class WriteRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DeleteResult(_message.Message):
    __slots__ = ("success", "file_not_found", "not_file", "permission_denied", "file_busy", "rejected", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    NOT_FILE_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    FILE_BUSY_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: DeleteSuccess
    file_not_found: DeleteFileNotFound
    not_file: DeleteNotFile
    permission_denied: DeletePermissionDenied
    file_busy: DeleteFileBusy
    rejected: DeleteRejected
    error: DeleteError
    def __init__(self, success: _Optional[_Union[DeleteSuccess, _Mapping]] = ..., file_not_found: _Optional[_Union[DeleteFileNotFound, _Mapping]] = ..., not_file: _Optional[_Union[DeleteNotFile, _Mapping]] = ..., permission_denied: _Optional[_Union[DeletePermissionDenied, _Mapping]] = ..., file_busy: _Optional[_Union[DeleteFileBusy, _Mapping]] = ..., rejected: _Optional[_Union[DeleteRejected, _Mapping]] = ..., error: _Optional[_Union[DeleteError, _Mapping]] = ...) -> None: ...

class DeleteSuccess(_message.Message):
    __slots__ = ("path", "deleted_file", "file_size", "prev_content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DELETED_FILE_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PREV_CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    deleted_file: str
    file_size: int
    prev_content: str
    def __init__(self, path: _Optional[str] = ..., deleted_file: _Optional[str] = ..., file_size: _Optional[int] = ..., prev_content: _Optional[str] = ...) -> None: ...

class DeleteFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DeleteNotFile(_message.Message):
    __slots__ = ("path", "actual_type")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_TYPE_FIELD_NUMBER: _ClassVar[int]
    path: str
    actual_type: str
    def __init__(self, path: _Optional[str] = ..., actual_type: _Optional[str] = ...) -> None: ...

class DeletePermissionDenied(_message.Message):
    __slots__ = ("path", "client_visible_error", "is_readonly")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CLIENT_VISIBLE_ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    client_visible_error: str
    is_readonly: bool
    def __init__(self, path: _Optional[str] = ..., client_visible_error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class DeleteFileBusy(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DeleteRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DeleteError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class GrepResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: GrepSuccess
    error: GrepError
    def __init__(self, success: _Optional[_Union[GrepSuccess, _Mapping]] = ..., error: _Optional[_Union[GrepError, _Mapping]] = ...) -> None: ...

class GrepSuccess(_message.Message):
    __slots__ = ("pattern", "path", "output_mode", "workspace_results", "active_editor_result")
    class WorkspaceResultsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: GrepUnionResult
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[GrepUnionResult, _Mapping]] = ...) -> None: ...
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_RESULTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_EDITOR_RESULT_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    output_mode: str
    workspace_results: _containers.MessageMap[str, GrepUnionResult]
    active_editor_result: GrepUnionResult
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., output_mode: _Optional[str] = ..., workspace_results: _Optional[_Mapping[str, GrepUnionResult]] = ..., active_editor_result: _Optional[_Union[GrepUnionResult, _Mapping]] = ...) -> None: ...

class GrepError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ReadResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "file_not_found", "permission_denied", "invalid_file")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    INVALID_FILE_FIELD_NUMBER: _ClassVar[int]
    success: ReadSuccess
    error: ReadError
    rejected: ReadRejected
    file_not_found: ReadFileNotFound
    permission_denied: ReadPermissionDenied
    invalid_file: ReadInvalidFile
    def __init__(self, success: _Optional[_Union[ReadSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadError, _Mapping]] = ..., rejected: _Optional[_Union[ReadRejected, _Mapping]] = ..., file_not_found: _Optional[_Union[ReadFileNotFound, _Mapping]] = ..., permission_denied: _Optional[_Union[ReadPermissionDenied, _Mapping]] = ..., invalid_file: _Optional[_Union[ReadInvalidFile, _Mapping]] = ...) -> None: ...

class ReadSuccess(_message.Message):
    __slots__ = ("path", "total_lines", "file_size", "truncated", "output_blob_id", "content", "data", "range_applied")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    RANGE_APPLIED_FIELD_NUMBER: _ClassVar[int]
    path: str
    total_lines: int
    file_size: int
    truncated: bool
    output_blob_id: bytes
    content: str
    data: bytes
    range_applied: bool
    def __init__(self, path: _Optional[str] = ..., total_lines: _Optional[int] = ..., file_size: _Optional[int] = ..., truncated: _Optional[bool] = ..., output_blob_id: _Optional[bytes] = ..., content: _Optional[str] = ..., data: _Optional[bytes] = ..., range_applied: _Optional[bool] = ...) -> None: ...

class ReadError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ReadRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReadFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class ReadPermissionDenied(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class ReadInvalidFile(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class LsResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "timeout")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    success: LsSuccess
    error: LsError
    rejected: LsRejected
    timeout: LsTimeout
    def __init__(self, success: _Optional[_Union[LsSuccess, _Mapping]] = ..., error: _Optional[_Union[LsError, _Mapping]] = ..., rejected: _Optional[_Union[LsRejected, _Mapping]] = ..., timeout: _Optional[_Union[LsTimeout, _Mapping]] = ...) -> None: ...

class LsSuccess(_message.Message):
    __slots__ = ("directory_tree_root",)
    DIRECTORY_TREE_ROOT_FIELD_NUMBER: _ClassVar[int]
    directory_tree_root: LsDirectoryTreeNode
    def __init__(self, directory_tree_root: _Optional[_Union[LsDirectoryTreeNode, _Mapping]] = ...) -> None: ...

class LsError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class LsRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class LsTimeout(_message.Message):
    __slots__ = ("directory_tree_root",)
    DIRECTORY_TREE_ROOT_FIELD_NUMBER: _ClassVar[int]
    directory_tree_root: LsDirectoryTreeNode
    def __init__(self, directory_tree_root: _Optional[_Union[LsDirectoryTreeNode, _Mapping]] = ...) -> None: ...

class DiagnosticsResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "file_not_found", "permission_denied")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    success: DiagnosticsSuccess
    error: DiagnosticsError
    rejected: DiagnosticsRejected
    file_not_found: DiagnosticsFileNotFound
    permission_denied: DiagnosticsPermissionDenied
    def __init__(self, success: _Optional[_Union[DiagnosticsSuccess, _Mapping]] = ..., error: _Optional[_Union[DiagnosticsError, _Mapping]] = ..., rejected: _Optional[_Union[DiagnosticsRejected, _Mapping]] = ..., file_not_found: _Optional[_Union[DiagnosticsFileNotFound, _Mapping]] = ..., permission_denied: _Optional[_Union[DiagnosticsPermissionDenied, _Mapping]] = ...) -> None: ...

class DiagnosticsSuccess(_message.Message):
    __slots__ = ("path", "diagnostics", "total_diagnostics")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    path: str
    diagnostics: _containers.RepeatedCompositeFieldContainer[Diagnostic]
    total_diagnostics: int
    def __init__(self, path: _Optional[str] = ..., diagnostics: _Optional[_Iterable[_Union[Diagnostic, _Mapping]]] = ..., total_diagnostics: _Optional[int] = ...) -> None: ...

class DiagnosticsError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class DiagnosticsRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DiagnosticsFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DiagnosticsPermissionDenied(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class RequestContextResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: RequestContextSuccess
    error: RequestContextError
    rejected: RequestContextRejected
    def __init__(self, success: _Optional[_Union[RequestContextSuccess, _Mapping]] = ..., error: _Optional[_Union[RequestContextError, _Mapping]] = ..., rejected: _Optional[_Union[RequestContextRejected, _Mapping]] = ...) -> None: ...

class RequestContextSuccess(_message.Message):
    __slots__ = ("request_context", "served_from_disk_cache")
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SERVED_FROM_DISK_CACHE_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    served_from_disk_cache: bool
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., served_from_disk_cache: _Optional[bool] = ...) -> None: ...

class RequestContextError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class RequestContextRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class McpResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied", "tool_not_found", "server_not_found", "approved")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    TOOL_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    SERVER_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    success: McpSuccess
    error: McpError
    rejected: McpRejected
    permission_denied: McpPermissionDenied
    tool_not_found: McpToolNotFound
    server_not_found: McpServerNotFound
    approved: McpApproved
    def __init__(self, success: _Optional[_Union[McpSuccess, _Mapping]] = ..., error: _Optional[_Union[McpError, _Mapping]] = ..., rejected: _Optional[_Union[McpRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[McpPermissionDenied, _Mapping]] = ..., tool_not_found: _Optional[_Union[McpToolNotFound, _Mapping]] = ..., server_not_found: _Optional[_Union[McpServerNotFound, _Mapping]] = ..., approved: _Optional[_Union[McpApproved, _Mapping]] = ...) -> None: ...

class McpError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class McpToolNotFound(_message.Message):
    __slots__ = ("name", "available_tools")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    name: str
    available_tools: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., available_tools: _Optional[_Iterable[str]] = ...) -> None: ...

class McpServerNotFound(_message.Message):
    __slots__ = ("name", "available_servers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_SERVERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    available_servers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., available_servers: _Optional[_Iterable[str]] = ...) -> None: ...

class McpApproved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellStream(_message.Message):
    __slots__ = ("stdout", "stderr", "exit", "start", "rejected", "permission_denied", "backgrounded", "hook_context")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    BACKGROUNDED_FIELD_NUMBER: _ClassVar[int]
    HOOK_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    stdout: ShellStreamStdout
    stderr: ShellStreamStderr
    exit: ShellStreamExit
    start: ShellStreamStart
    rejected: ShellRejected
    permission_denied: ShellPermissionDenied
    backgrounded: ShellStreamBackgrounded
    hook_context: ShellStreamHookContext
    def __init__(self, stdout: _Optional[_Union[ShellStreamStdout, _Mapping]] = ..., stderr: _Optional[_Union[ShellStreamStderr, _Mapping]] = ..., exit: _Optional[_Union[ShellStreamExit, _Mapping]] = ..., start: _Optional[_Union[ShellStreamStart, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ..., backgrounded: _Optional[_Union[ShellStreamBackgrounded, _Mapping]] = ..., hook_context: _Optional[_Union[ShellStreamHookContext, _Mapping]] = ...) -> None: ...

class ShellStreamBackgrounded(_message.Message):
    __slots__ = ("shell_id", "command", "working_directory", "pid", "ms_to_wait", "reason")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    MS_TO_WAIT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    command: str
    working_directory: str
    pid: int
    ms_to_wait: int
    reason: ShellBackgroundReason
    def __init__(self, shell_id: _Optional[int] = ..., command: _Optional[str] = ..., working_directory: _Optional[str] = ..., pid: _Optional[int] = ..., ms_to_wait: _Optional[int] = ..., reason: _Optional[_Union[ShellBackgroundReason, str]] = ...) -> None: ...

class ShellStreamHookContext(_message.Message):
    __slots__ = ("hook_additional_contexts",)
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    def __init__(self, hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ...) -> None: ...

class BackgroundShellSpawnResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    success: BackgroundShellSpawnSuccess
    error: BackgroundShellSpawnError
    rejected: ShellRejected
    permission_denied: ShellPermissionDenied
    def __init__(self, success: _Optional[_Union[BackgroundShellSpawnSuccess, _Mapping]] = ..., error: _Optional[_Union[BackgroundShellSpawnError, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ...) -> None: ...

class BackgroundShellSpawnSuccess(_message.Message):
    __slots__ = ("shell_id", "command", "working_directory", "pid")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    command: str
    working_directory: str
    pid: int
    def __init__(self, shell_id: _Optional[int] = ..., command: _Optional[str] = ..., working_directory: _Optional[str] = ..., pid: _Optional[int] = ...) -> None: ...

class BackgroundShellSpawnError(_message.Message):
    __slots__ = ("command", "working_directory", "error")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ListMcpResourcesExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: ListMcpResourcesSuccess
    error: ListMcpResourcesError
    rejected: ListMcpResourcesRejected
    def __init__(self, success: _Optional[_Union[ListMcpResourcesSuccess, _Mapping]] = ..., error: _Optional[_Union[ListMcpResourcesError, _Mapping]] = ..., rejected: _Optional[_Union[ListMcpResourcesRejected, _Mapping]] = ...) -> None: ...

class ListMcpResourcesSuccess(_message.Message):
    __slots__ = ("resources",)
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[ListMcpResourcesExecResult_McpResource]
    def __init__(self, resources: _Optional[_Iterable[_Union[ListMcpResourcesExecResult_McpResource, _Mapping]]] = ...) -> None: ...

class ListMcpResourcesError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ListMcpResourcesRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ReadMcpResourceExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "not_found")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    success: ReadMcpResourceSuccess
    error: ReadMcpResourceError
    rejected: ReadMcpResourceRejected
    not_found: ReadMcpResourceNotFound
    def __init__(self, success: _Optional[_Union[ReadMcpResourceSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadMcpResourceError, _Mapping]] = ..., rejected: _Optional[_Union[ReadMcpResourceRejected, _Mapping]] = ..., not_found: _Optional[_Union[ReadMcpResourceNotFound, _Mapping]] = ...) -> None: ...

class ReadMcpResourceSuccess(_message.Message):
    __slots__ = ("uri", "name", "description", "mime_type", "annotations", "download_path", "text", "blob", "output_location")
    class AnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    URI_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    BLOB_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    uri: str
    name: str
    description: str
    mime_type: str
    annotations: _containers.ScalarMap[str, str]
    download_path: str
    text: str
    blob: bytes
    output_location: OutputLocation
    def __init__(self, uri: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., mime_type: _Optional[str] = ..., annotations: _Optional[_Mapping[str, str]] = ..., download_path: _Optional[str] = ..., text: _Optional[str] = ..., blob: _Optional[bytes] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ...) -> None: ...

class ReadMcpResourceError(_message.Message):
    __slots__ = ("uri", "error")
    URI_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    uri: str
    error: str
    def __init__(self, uri: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ReadMcpResourceRejected(_message.Message):
    __slots__ = ("uri", "reason")
    URI_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    uri: str
    reason: str
    def __init__(self, uri: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReadMcpResourceNotFound(_message.Message):
    __slots__ = ("uri",)
    URI_FIELD_NUMBER: _ClassVar[int]
    uri: str
    def __init__(self, uri: _Optional[str] = ...) -> None: ...

class FetchResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: FetchSuccess
    error: FetchError
    def __init__(self, success: _Optional[_Union[FetchSuccess, _Mapping]] = ..., error: _Optional[_Union[FetchError, _Mapping]] = ...) -> None: ...

class FetchSuccess(_message.Message):
    __slots__ = ("url", "content", "status_code", "content_type")
    URL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    url: str
    content: str
    status_code: int
    content_type: str
    def __init__(self, url: _Optional[str] = ..., content: _Optional[str] = ..., status_code: _Optional[int] = ..., content_type: _Optional[str] = ...) -> None: ...

class FetchError(_message.Message):
    __slots__ = ("url", "error")
    URL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    url: str
    error: str
    def __init__(self, url: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class RecordScreenResult(_message.Message):
    __slots__ = ("start_success", "save_success", "discard_success", "failure")
    START_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    SAVE_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    start_success: RecordScreenStartSuccess
    save_success: RecordScreenSaveSuccess
    discard_success: RecordScreenDiscardSuccess
    failure: RecordScreenFailure
    def __init__(self, start_success: _Optional[_Union[RecordScreenStartSuccess, _Mapping]] = ..., save_success: _Optional[_Union[RecordScreenSaveSuccess, _Mapping]] = ..., discard_success: _Optional[_Union[RecordScreenDiscardSuccess, _Mapping]] = ..., failure: _Optional[_Union[RecordScreenFailure, _Mapping]] = ...) -> None: ...

class RecordScreenStartSuccess(_message.Message):
    __slots__ = ("was_prior_recording_cancelled", "was_save_as_filename_ignored")
    WAS_PRIOR_RECORDING_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    WAS_SAVE_AS_FILENAME_IGNORED_FIELD_NUMBER: _ClassVar[int]
    was_prior_recording_cancelled: bool
    was_save_as_filename_ignored: bool
    def __init__(self, was_prior_recording_cancelled: _Optional[bool] = ..., was_save_as_filename_ignored: _Optional[bool] = ...) -> None: ...

class RecordScreenSaveSuccess(_message.Message):
    __slots__ = ("path", "recording_duration_ms", "requested_file_path_rejected_reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    RECORDING_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FILE_PATH_REJECTED_REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    recording_duration_ms: int
    requested_file_path_rejected_reason: int
    def __init__(self, path: _Optional[str] = ..., recording_duration_ms: _Optional[int] = ..., requested_file_path_rejected_reason: _Optional[int] = ...) -> None: ...

class RecordScreenDiscardSuccess(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RecordScreenFailure(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ComputerUseResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ComputerUseSuccess
    error: ComputerUseError
    def __init__(self, success: _Optional[_Union[ComputerUseSuccess, _Mapping]] = ..., error: _Optional[_Union[ComputerUseError, _Mapping]] = ...) -> None: ...

class ComputerUseSuccess(_message.Message):
    __slots__ = ("action_count", "duration_ms", "screenshot", "log", "screenshot_path", "cursor_position")
    ACTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_PATH_FIELD_NUMBER: _ClassVar[int]
    CURSOR_POSITION_FIELD_NUMBER: _ClassVar[int]
    action_count: int
    duration_ms: int
    screenshot: str
    log: str
    screenshot_path: str
    cursor_position: Coordinate
    def __init__(self, action_count: _Optional[int] = ..., duration_ms: _Optional[int] = ..., screenshot: _Optional[str] = ..., log: _Optional[str] = ..., screenshot_path: _Optional[str] = ..., cursor_position: _Optional[_Union[Coordinate, _Mapping]] = ...) -> None: ...

class ComputerUseError(_message.Message):
    __slots__ = ("error", "action_count", "duration_ms", "log", "screenshot", "screenshot_path")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ACTION_COUNT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    SCREENSHOT_PATH_FIELD_NUMBER: _ClassVar[int]
    error: str
    action_count: int
    duration_ms: int
    log: str
    screenshot: str
    screenshot_path: str
    def __init__(self, error: _Optional[str] = ..., action_count: _Optional[int] = ..., duration_ms: _Optional[int] = ..., log: _Optional[str] = ..., screenshot: _Optional[str] = ..., screenshot_path: _Optional[str] = ...) -> None: ...

class WriteShellStdinResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: WriteShellStdinSuccess
    error: WriteShellStdinError
    def __init__(self, success: _Optional[_Union[WriteShellStdinSuccess, _Mapping]] = ..., error: _Optional[_Union[WriteShellStdinError, _Mapping]] = ...) -> None: ...

class WriteShellStdinSuccess(_message.Message):
    __slots__ = ("shell_id", "terminal_file_length_before_input_written")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FILE_LENGTH_BEFORE_INPUT_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    terminal_file_length_before_input_written: int
    def __init__(self, shell_id: _Optional[int] = ..., terminal_file_length_before_input_written: _Optional[int] = ...) -> None: ...

class WriteShellStdinError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class McpStateExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: McpStateSuccess
    error: McpStateError
    rejected: McpStateRejected
    def __init__(self, success: _Optional[_Union[McpStateSuccess, _Mapping]] = ..., error: _Optional[_Union[McpStateError, _Mapping]] = ..., rejected: _Optional[_Union[McpStateRejected, _Mapping]] = ...) -> None: ...

class McpStateSuccess(_message.Message):
    __slots__ = ("servers",)
    SERVERS_FIELD_NUMBER: _ClassVar[int]
    servers: _containers.RepeatedCompositeFieldContainer[McpStateServer]
    def __init__(self, servers: _Optional[_Iterable[_Union[McpStateServer, _Mapping]]] = ...) -> None: ...

class McpStateServer(_message.Message):
    __slots__ = ("server_name", "server_identifier", "plugin", "marketplace", "tools", "instructions", "status")
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    SERVER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    server_name: str
    server_identifier: str
    plugin: str
    marketplace: str
    tools: _containers.RepeatedCompositeFieldContainer[McpToolDefinition]
    instructions: _containers.RepeatedCompositeFieldContainer[McpInstructions]
    status: str
    def __init__(self, server_name: _Optional[str] = ..., server_identifier: _Optional[str] = ..., plugin: _Optional[str] = ..., marketplace: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[McpToolDefinition, _Mapping]]] = ..., instructions: _Optional[_Iterable[_Union[McpInstructions, _Mapping]]] = ..., status: _Optional[str] = ...) -> None: ...

class McpStateError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class McpStateRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ExecuteHookResult(_message.Message):
    __slots__ = ("response",)
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    response: ExecuteHookResponse
    def __init__(self, response: _Optional[_Union[ExecuteHookResponse, _Mapping]] = ...) -> None: ...

class ExecuteHookResponse(_message.Message):
    __slots__ = ("pre_compact", "subagent_start", "subagent_stop", "pre_tool_use", "post_tool_use", "post_tool_use_failure", "before_submit_prompt", "after_agent_response", "after_agent_thought", "stop")
    PRE_COMPACT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_START_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_STOP_FIELD_NUMBER: _ClassVar[int]
    PRE_TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    POST_TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    POST_TOOL_USE_FAILURE_FIELD_NUMBER: _ClassVar[int]
    BEFORE_SUBMIT_PROMPT_FIELD_NUMBER: _ClassVar[int]
    AFTER_AGENT_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    AFTER_AGENT_THOUGHT_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    pre_compact: PreCompactRequestResponse
    subagent_start: SubagentStartRequestResponse
    subagent_stop: SubagentStopRequestResponse
    pre_tool_use: PreToolUseRequestResponse
    post_tool_use: PostToolUseRequestResponse
    post_tool_use_failure: PostToolUseFailureRequestResponse
    before_submit_prompt: BeforeSubmitPromptRequestResponse
    after_agent_response: AfterAgentResponseRequestResponse
    after_agent_thought: AfterAgentThoughtRequestResponse
    stop: StopRequestResponse
    def __init__(self, pre_compact: _Optional[_Union[PreCompactRequestResponse, _Mapping]] = ..., subagent_start: _Optional[_Union[SubagentStartRequestResponse, _Mapping]] = ..., subagent_stop: _Optional[_Union[SubagentStopRequestResponse, _Mapping]] = ..., pre_tool_use: _Optional[_Union[PreToolUseRequestResponse, _Mapping]] = ..., post_tool_use: _Optional[_Union[PostToolUseRequestResponse, _Mapping]] = ..., post_tool_use_failure: _Optional[_Union[PostToolUseFailureRequestResponse, _Mapping]] = ..., before_submit_prompt: _Optional[_Union[BeforeSubmitPromptRequestResponse, _Mapping]] = ..., after_agent_response: _Optional[_Union[AfterAgentResponseRequestResponse, _Mapping]] = ..., after_agent_thought: _Optional[_Union[AfterAgentThoughtRequestResponse, _Mapping]] = ..., stop: _Optional[_Union[StopRequestResponse, _Mapping]] = ...) -> None: ...

class PreCompactRequestResponse(_message.Message):
    __slots__ = ("user_message",)
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    user_message: str
    def __init__(self, user_message: _Optional[str] = ...) -> None: ...

class SubagentStartRequestResponse(_message.Message):
    __slots__ = ("permission", "user_message", "additional_context")
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    permission: str
    user_message: str
    additional_context: str
    def __init__(self, permission: _Optional[str] = ..., user_message: _Optional[str] = ..., additional_context: _Optional[str] = ...) -> None: ...

class SubagentStopRequestResponse(_message.Message):
    __slots__ = ("followup_message", "additional_context")
    FOLLOWUP_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    followup_message: str
    additional_context: str
    def __init__(self, followup_message: _Optional[str] = ..., additional_context: _Optional[str] = ...) -> None: ...

class PreToolUseRequestResponse(_message.Message):
    __slots__ = ("permission", "user_message", "agent_message", "updated_input", "additional_context")
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    AGENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_INPUT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    permission: str
    user_message: str
    agent_message: str
    updated_input: str
    additional_context: str
    def __init__(self, permission: _Optional[str] = ..., user_message: _Optional[str] = ..., agent_message: _Optional[str] = ..., updated_input: _Optional[str] = ..., additional_context: _Optional[str] = ...) -> None: ...

class PostToolUseRequestResponse(_message.Message):
    __slots__ = ("additional_context",)
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    additional_context: str
    def __init__(self, additional_context: _Optional[str] = ...) -> None: ...

class PostToolUseFailureRequestResponse(_message.Message):
    __slots__ = ("additional_context",)
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    additional_context: str
    def __init__(self, additional_context: _Optional[str] = ...) -> None: ...

class BeforeSubmitPromptRequestResponse(_message.Message):
    __slots__ = ("user_message", "additional_context")
    CONTINUE_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    user_message: str
    additional_context: str
    def __init__(self, user_message: _Optional[str] = ..., additional_context: _Optional[str] = ..., **kwargs) -> None: ...

class AfterAgentResponseRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AfterAgentThoughtRequestResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StopRequestResponse(_message.Message):
    __slots__ = ("followup_message",)
    FOLLOWUP_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    followup_message: str
    def __init__(self, followup_message: _Optional[str] = ...) -> None: ...

class SubagentResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: SubagentSuccess
    error: SubagentError
    def __init__(self, success: _Optional[_Union[SubagentSuccess, _Mapping]] = ..., error: _Optional[_Union[SubagentError, _Mapping]] = ...) -> None: ...

class SubagentSuccess(_message.Message):
    __slots__ = ("agent_id", "final_message", "tool_call_count", "background_reason", "transcript_path")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    FINAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_COUNT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_REASON_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_PATH_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    final_message: str
    tool_call_count: int
    background_reason: SubagentBackgroundReason
    transcript_path: str
    def __init__(self, agent_id: _Optional[str] = ..., final_message: _Optional[str] = ..., tool_call_count: _Optional[int] = ..., background_reason: _Optional[_Union[SubagentBackgroundReason, str]] = ..., transcript_path: _Optional[str] = ...) -> None: ...

class SubagentError(_message.Message):
    __slots__ = ("agent_id", "error")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    error: str
    def __init__(self, agent_id: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ForceBackgroundShellResult(_message.Message):
    __slots__ = ("status", "shell_result")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SHELL_RESULT_FIELD_NUMBER: _ClassVar[int]
    status: ForceBackgroundShellStatus
    shell_result: ShellResult
    def __init__(self, status: _Optional[_Union[ForceBackgroundShellStatus, str]] = ..., shell_result: _Optional[_Union[ShellResult, _Mapping]] = ...) -> None: ...

class ForceBackgroundSubagentResult(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: ForceBackgroundSubagentStatus
    def __init__(self, status: _Optional[_Union[ForceBackgroundSubagentStatus, str]] = ...) -> None: ...

class SubagentAwaitResult(_message.Message):
    __slots__ = ("complete", "still_running", "not_found", "error")
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    STILL_RUNNING_FIELD_NUMBER: _ClassVar[int]
    NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    complete: SubagentAwaitComplete
    still_running: SubagentAwaitStillRunning
    not_found: SubagentAwaitNotFound
    error: SubagentAwaitError
    def __init__(self, complete: _Optional[_Union[SubagentAwaitComplete, _Mapping]] = ..., still_running: _Optional[_Union[SubagentAwaitStillRunning, _Mapping]] = ..., not_found: _Optional[_Union[SubagentAwaitNotFound, _Mapping]] = ..., error: _Optional[_Union[SubagentAwaitError, _Mapping]] = ...) -> None: ...

class SubagentAwaitComplete(_message.Message):
    __slots__ = ("agent_id", "transcript_path", "tool_call_count", "final_message")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_COUNT_FIELD_NUMBER: _ClassVar[int]
    FINAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    transcript_path: str
    tool_call_count: int
    final_message: str
    def __init__(self, agent_id: _Optional[str] = ..., transcript_path: _Optional[str] = ..., tool_call_count: _Optional[int] = ..., final_message: _Optional[str] = ...) -> None: ...

class SubagentAwaitStillRunning(_message.Message):
    __slots__ = ("agent_id", "transcript_path")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_PATH_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    transcript_path: str
    def __init__(self, agent_id: _Optional[str] = ..., transcript_path: _Optional[str] = ...) -> None: ...

class SubagentAwaitNotFound(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class SubagentAwaitError(_message.Message):
    __slots__ = ("agent_id", "error")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    error: str
    def __init__(self, agent_id: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class SmartModeClassifierResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: SmartModeClassifierSuccess
    error: SmartModeClassifierError
    def __init__(self, success: _Optional[_Union[SmartModeClassifierSuccess, _Mapping]] = ..., error: _Optional[_Union[SmartModeClassifierError, _Mapping]] = ...) -> None: ...

class SmartModeClassifierSuccess(_message.Message):
    __slots__ = ("decision", "block_reason")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    BLOCK_REASON_FIELD_NUMBER: _ClassVar[int]
    decision: SmartModeClassifierDecision
    block_reason: str
    def __init__(self, decision: _Optional[_Union[SmartModeClassifierDecision, str]] = ..., block_reason: _Optional[str] = ...) -> None: ...

class SmartModeClassifierError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class CanvasDiagnosticsResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: CanvasDiagnosticsSuccess
    error: CanvasDiagnosticsError
    def __init__(self, success: _Optional[_Union[CanvasDiagnosticsSuccess, _Mapping]] = ..., error: _Optional[_Union[CanvasDiagnosticsError, _Mapping]] = ...) -> None: ...

class CanvasDiagnosticsSuccess(_message.Message):
    __slots__ = ("path", "diagnostics")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    path: str
    diagnostics: _containers.RepeatedCompositeFieldContainer[Diagnostic]
    def __init__(self, path: _Optional[str] = ..., diagnostics: _Optional[_Iterable[_Union[Diagnostic, _Mapping]]] = ...) -> None: ...

class CanvasDiagnosticsError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ShellAllowlistPrecheckResult(_message.Message):
    __slots__ = ("allowlisted",)
    ALLOWLISTED_FIELD_NUMBER: _ClassVar[int]
    allowlisted: bool
    def __init__(self, allowlisted: _Optional[bool] = ...) -> None: ...

class McpAllowlistPrecheckResult(_message.Message):
    __slots__ = ("allowlisted",)
    ALLOWLISTED_FIELD_NUMBER: _ClassVar[int]
    allowlisted: bool
    def __init__(self, allowlisted: _Optional[bool] = ...) -> None: ...

class WebFetchAllowlistPrecheckResult(_message.Message):
    __slots__ = ("allowlisted",)
    ALLOWLISTED_FIELD_NUMBER: _ClassVar[int]
    allowlisted: bool
    def __init__(self, allowlisted: _Optional[bool] = ...) -> None: ...

class GetDiffResponse(_message.Message):
    __slots__ = ("diff", "submodule_diffs", "patch_id", "head_sha", "has_uncommitted_changes")
    DIFF_FIELD_NUMBER: _ClassVar[int]
    SUBMODULE_DIFFS_FIELD_NUMBER: _ClassVar[int]
    PATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HEAD_SHA_FIELD_NUMBER: _ClassVar[int]
    HAS_UNCOMMITTED_CHANGES_FIELD_NUMBER: _ClassVar[int]
    diff: GitDiff
    submodule_diffs: _containers.RepeatedCompositeFieldContainer[GetDiffResponse_SubmoduleDiff]
    patch_id: str
    head_sha: str
    has_uncommitted_changes: bool
    def __init__(self, diff: _Optional[_Union[GitDiff, _Mapping]] = ..., submodule_diffs: _Optional[_Iterable[_Union[GetDiffResponse_SubmoduleDiff, _Mapping]]] = ..., patch_id: _Optional[str] = ..., head_sha: _Optional[str] = ..., has_uncommitted_changes: _Optional[bool] = ...) -> None: ...

class PiReadExecResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: PiReadExecSuccess
    error: PiReadExecError
    def __init__(self, success: _Optional[_Union[PiReadExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiReadExecError, _Mapping]] = ...) -> None: ...

class PiReadExecSuccess(_message.Message):
    __slots__ = ("output", "truncation")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    output: str
    truncation: PiTruncation
    def __init__(self, output: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ...) -> None: ...

class PiTruncation(_message.Message):
    __slots__ = ("truncated", "truncated_by", "total_lines", "output_lines", "output_bytes", "max_lines", "max_bytes", "first_line_exceeds_limit", "last_line_partial")
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_BY_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LINES_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_LINES_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    FIRST_LINE_EXCEEDS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    LAST_LINE_PARTIAL_FIELD_NUMBER: _ClassVar[int]
    truncated: bool
    truncated_by: str
    total_lines: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    first_line_exceeds_limit: bool
    last_line_partial: bool
    def __init__(self, truncated: _Optional[bool] = ..., truncated_by: _Optional[str] = ..., total_lines: _Optional[int] = ..., output_lines: _Optional[int] = ..., output_bytes: _Optional[int] = ..., max_lines: _Optional[int] = ..., max_bytes: _Optional[int] = ..., first_line_exceeds_limit: _Optional[bool] = ..., last_line_partial: _Optional[bool] = ...) -> None: ...

class PiReadExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class PiBashExecResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: PiBashExecSuccess
    error: PiBashExecError
    def __init__(self, success: _Optional[_Union[PiBashExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiBashExecError, _Mapping]] = ...) -> None: ...

class PiBashExecSuccess(_message.Message):
    __slots__ = ("output", "truncation", "full_output_path")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    FULL_OUTPUT_PATH_FIELD_NUMBER: _ClassVar[int]
    output: str
    truncation: PiTruncation
    full_output_path: str
    def __init__(self, output: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ..., full_output_path: _Optional[str] = ...) -> None: ...

class PiBashExecError(_message.Message):
    __slots__ = ("error", "truncation", "full_output_path")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    FULL_OUTPUT_PATH_FIELD_NUMBER: _ClassVar[int]
    error: str
    truncation: PiTruncation
    full_output_path: str
    def __init__(self, error: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ..., full_output_path: _Optional[str] = ...) -> None: ...

class PiEditExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: PiEditExecSuccess
    error: PiEditExecError
    rejected: PiEditExecRejected
    def __init__(self, success: _Optional[_Union[PiEditExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiEditExecError, _Mapping]] = ..., rejected: _Optional[_Union[PiEditExecRejected, _Mapping]] = ...) -> None: ...

class PiEditExecSuccess(_message.Message):
    __slots__ = ("output", "diff", "patch", "first_changed_line")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    FIRST_CHANGED_LINE_FIELD_NUMBER: _ClassVar[int]
    output: str
    diff: str
    patch: str
    first_changed_line: int
    def __init__(self, output: _Optional[str] = ..., diff: _Optional[str] = ..., patch: _Optional[str] = ..., first_changed_line: _Optional[int] = ...) -> None: ...

class PiEditExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class PiEditExecRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class PiWriteExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: PiWriteExecSuccess
    error: PiWriteExecError
    rejected: PiWriteExecRejected
    def __init__(self, success: _Optional[_Union[PiWriteExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiWriteExecError, _Mapping]] = ..., rejected: _Optional[_Union[PiWriteExecRejected, _Mapping]] = ...) -> None: ...

class PiWriteExecSuccess(_message.Message):
    __slots__ = ("output",)
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    output: str
    def __init__(self, output: _Optional[str] = ...) -> None: ...

class PiWriteExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class PiWriteExecRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class PiGrepExecResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: PiGrepExecSuccess
    error: PiGrepExecError
    def __init__(self, success: _Optional[_Union[PiGrepExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiGrepExecError, _Mapping]] = ...) -> None: ...

class PiGrepExecSuccess(_message.Message):
    __slots__ = ("output", "truncation", "match_limit_reached", "lines_truncated")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_LIMIT_REACHED_FIELD_NUMBER: _ClassVar[int]
    LINES_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    output: str
    truncation: PiTruncation
    match_limit_reached: int
    lines_truncated: bool
    def __init__(self, output: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ..., match_limit_reached: _Optional[int] = ..., lines_truncated: _Optional[bool] = ...) -> None: ...

class PiGrepExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class PiFindExecResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: PiFindExecSuccess
    error: PiFindExecError
    def __init__(self, success: _Optional[_Union[PiFindExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiFindExecError, _Mapping]] = ...) -> None: ...

class PiFindExecSuccess(_message.Message):
    __slots__ = ("output", "truncation", "result_limit_reached")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    RESULT_LIMIT_REACHED_FIELD_NUMBER: _ClassVar[int]
    output: str
    truncation: PiTruncation
    result_limit_reached: int
    def __init__(self, output: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ..., result_limit_reached: _Optional[int] = ...) -> None: ...

class PiFindExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class PiLsExecResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: PiLsExecSuccess
    error: PiLsExecError
    def __init__(self, success: _Optional[_Union[PiLsExecSuccess, _Mapping]] = ..., error: _Optional[_Union[PiLsExecError, _Mapping]] = ...) -> None: ...

class PiLsExecSuccess(_message.Message):
    __slots__ = ("output", "truncation", "entry_limit_reached")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    ENTRY_LIMIT_REACHED_FIELD_NUMBER: _ClassVar[int]
    output: str
    truncation: PiTruncation
    entry_limit_reached: int
    def __init__(self, output: _Optional[str] = ..., truncation: _Optional[_Union[PiTruncation, _Mapping]] = ..., entry_limit_reached: _Optional[int] = ...) -> None: ...

class PiLsExecError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ConversationSearchResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ConversationSearchSuccess
    error: ConversationSearchError
    def __init__(self, success: _Optional[_Union[ConversationSearchSuccess, _Mapping]] = ..., error: _Optional[_Union[ConversationSearchError, _Mapping]] = ...) -> None: ...

class ConversationSearchSuccess(_message.Message):
    __slots__ = ("hits", "truncated", "partial", "rebuilding")
    HITS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    REBUILDING_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[ConversationSearchHit]
    truncated: bool
    partial: bool
    rebuilding: bool
    def __init__(self, hits: _Optional[_Iterable[_Union[ConversationSearchHit, _Mapping]]] = ..., truncated: _Optional[bool] = ..., partial: _Optional[bool] = ..., rebuilding: _Optional[bool] = ...) -> None: ...

class ConversationSearchError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class AgentStoreConflictResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: AgentStoreConflictSuccess
    error: AgentStoreConflictError
    def __init__(self, success: _Optional[_Union[AgentStoreConflictSuccess, _Mapping]] = ..., error: _Optional[_Union[AgentStoreConflictError, _Mapping]] = ...) -> None: ...

class AgentStoreConflictSuccess(_message.Message):
    __slots__ = ("events", "next_cursor", "gap")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    GAP_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[AgentStoreConflictEvent]
    next_cursor: AgentStoreConflictCursor
    gap: bool
    def __init__(self, events: _Optional[_Iterable[_Union[AgentStoreConflictEvent, _Mapping]]] = ..., next_cursor: _Optional[_Union[AgentStoreConflictCursor, _Mapping]] = ..., gap: _Optional[bool] = ...) -> None: ...

class AgentStoreConflictError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ExecClientControlMessage(_message.Message):
    __slots__ = ("stream_close", "throw", "heartbeat")
    STREAM_CLOSE_FIELD_NUMBER: _ClassVar[int]
    THROW_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    stream_close: ExecClientStreamClose
    throw: ExecClientThrow
    heartbeat: ExecClientHeartbeat
    def __init__(self, stream_close: _Optional[_Union[ExecClientStreamClose, _Mapping]] = ..., throw: _Optional[_Union[ExecClientThrow, _Mapping]] = ..., heartbeat: _Optional[_Union[ExecClientHeartbeat, _Mapping]] = ...) -> None: ...

class ExecClientStreamClose(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ExecClientThrow(_message.Message):
    __slots__ = ("id", "error", "stack_trace", "error_code")
    ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STACK_TRACE_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    id: int
    error: str
    stack_trace: str
    error_code: str
    def __init__(self, id: _Optional[int] = ..., error: _Optional[str] = ..., stack_trace: _Optional[str] = ..., error_code: _Optional[str] = ...) -> None: ...

class ExecClientHeartbeat(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ExecServerControlMessage(_message.Message):
    __slots__ = ("abort",)
    ABORT_FIELD_NUMBER: _ClassVar[int]
    abort: ExecServerAbort
    def __init__(self, abort: _Optional[_Union[ExecServerAbort, _Mapping]] = ...) -> None: ...

class ExecServerAbort(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class InteractionQuery(_message.Message):
    __slots__ = ("id", "web_search_request_query", "ask_question_interaction_query", "switch_mode_request_query", "exa_search_request_query", "exa_fetch_request_query", "create_plan_request_query", "setup_vm_environment_args", "web_fetch_request_query")
    ID_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_INTERACTION_QUERY_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    EXA_SEARCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    EXA_FETCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    SETUP_VM_ENVIRONMENT_ARGS_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    id: int
    web_search_request_query: WebSearchRequestQuery
    ask_question_interaction_query: AskQuestionInteractionQuery
    switch_mode_request_query: SwitchModeRequestQuery
    exa_search_request_query: ExaSearchRequestQuery
    exa_fetch_request_query: ExaFetchRequestQuery
    create_plan_request_query: CreatePlanRequestQuery
    setup_vm_environment_args: SetupVmEnvironmentArgs
    web_fetch_request_query: WebFetchRequestQuery
    def __init__(self, id: _Optional[int] = ..., web_search_request_query: _Optional[_Union[WebSearchRequestQuery, _Mapping]] = ..., ask_question_interaction_query: _Optional[_Union[AskQuestionInteractionQuery, _Mapping]] = ..., switch_mode_request_query: _Optional[_Union[SwitchModeRequestQuery, _Mapping]] = ..., exa_search_request_query: _Optional[_Union[ExaSearchRequestQuery, _Mapping]] = ..., exa_fetch_request_query: _Optional[_Union[ExaFetchRequestQuery, _Mapping]] = ..., create_plan_request_query: _Optional[_Union[CreatePlanRequestQuery, _Mapping]] = ..., setup_vm_environment_args: _Optional[_Union[SetupVmEnvironmentArgs, _Mapping]] = ..., web_fetch_request_query: _Optional[_Union[WebFetchRequestQuery, _Mapping]] = ...) -> None: ...

class WebSearchRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: WebSearchArgs
    def __init__(self, args: _Optional[_Union[WebSearchArgs, _Mapping]] = ...) -> None: ...

class WebSearchArgs(_message.Message):
    __slots__ = ("search_term", "tool_call_id")
    SEARCH_TERM_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    search_term: str
    tool_call_id: str
    def __init__(self, search_term: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class AskQuestionInteractionQuery(_message.Message):
    __slots__ = ("args", "tool_call_id")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    args: AskQuestionArgs
    tool_call_id: str
    def __init__(self, args: _Optional[_Union[AskQuestionArgs, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class SwitchModeRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: SwitchModeArgs
    def __init__(self, args: _Optional[_Union[SwitchModeArgs, _Mapping]] = ...) -> None: ...

class SwitchModeArgs(_message.Message):
    __slots__ = ("target_mode_id", "explanation", "tool_call_id")
    TARGET_MODE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    target_mode_id: str
    explanation: str
    tool_call_id: str
    def __init__(self, target_mode_id: _Optional[str] = ..., explanation: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class ExaSearchRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: ExaSearchArgs
    def __init__(self, args: _Optional[_Union[ExaSearchArgs, _Mapping]] = ...) -> None: ...

class ExaSearchArgs(_message.Message):
    __slots__ = ("query", "type", "num_results", "tool_call_id")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NUM_RESULTS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    query: str
    type: str
    num_results: int
    tool_call_id: str
    def __init__(self, query: _Optional[str] = ..., type: _Optional[str] = ..., num_results: _Optional[int] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class ExaFetchRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: ExaFetchArgs
    def __init__(self, args: _Optional[_Union[ExaFetchArgs, _Mapping]] = ...) -> None: ...

class ExaFetchArgs(_message.Message):
    __slots__ = ("ids", "tool_call_id")
    IDS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    tool_call_id: str
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class CreatePlanRequestQuery(_message.Message):
    __slots__ = ("args", "tool_call_id")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    args: CreatePlanArgs
    tool_call_id: str
    def __init__(self, args: _Optional[_Union[CreatePlanArgs, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class SetupVmEnvironmentArgs(_message.Message):
    __slots__ = ("install_command", "start_command")
    INSTALL_COMMAND_FIELD_NUMBER: _ClassVar[int]
    START_COMMAND_FIELD_NUMBER: _ClassVar[int]
    install_command: str
    start_command: str
    def __init__(self, install_command: _Optional[str] = ..., start_command: _Optional[str] = ...) -> None: ...

class WebFetchRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: FetchArgs
    def __init__(self, args: _Optional[_Union[FetchArgs, _Mapping]] = ...) -> None: ...

class InteractionResponse(_message.Message):
    __slots__ = ("id", "web_search_request_response", "ask_question_interaction_response", "switch_mode_request_response", "exa_search_request_response", "exa_fetch_request_response", "create_plan_request_response", "setup_vm_environment_result", "web_fetch_request_response")
    ID_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_INTERACTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    EXA_SEARCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    EXA_FETCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SETUP_VM_ENVIRONMENT_RESULT_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    id: int
    web_search_request_response: WebSearchRequestResponse
    ask_question_interaction_response: AskQuestionInteractionResponse
    switch_mode_request_response: SwitchModeRequestResponse
    exa_search_request_response: ExaSearchRequestResponse
    exa_fetch_request_response: ExaFetchRequestResponse
    create_plan_request_response: CreatePlanRequestResponse
    setup_vm_environment_result: SetupVmEnvironmentResult
    web_fetch_request_response: WebFetchRequestResponse
    def __init__(self, id: _Optional[int] = ..., web_search_request_response: _Optional[_Union[WebSearchRequestResponse, _Mapping]] = ..., ask_question_interaction_response: _Optional[_Union[AskQuestionInteractionResponse, _Mapping]] = ..., switch_mode_request_response: _Optional[_Union[SwitchModeRequestResponse, _Mapping]] = ..., exa_search_request_response: _Optional[_Union[ExaSearchRequestResponse, _Mapping]] = ..., exa_fetch_request_response: _Optional[_Union[ExaFetchRequestResponse, _Mapping]] = ..., create_plan_request_response: _Optional[_Union[CreatePlanRequestResponse, _Mapping]] = ..., setup_vm_environment_result: _Optional[_Union[SetupVmEnvironmentResult, _Mapping]] = ..., web_fetch_request_response: _Optional[_Union[WebFetchRequestResponse, _Mapping]] = ...) -> None: ...

class WebSearchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: WebSearchRequestResponse_Approved
    rejected: WebSearchRequestResponse_Rejected
    def __init__(self, approved: _Optional[_Union[WebSearchRequestResponse_Approved, _Mapping]] = ..., rejected: _Optional[_Union[WebSearchRequestResponse_Rejected, _Mapping]] = ...) -> None: ...

class WebSearchRequestResponse_Approved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WebSearchRequestResponse_Rejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class AskQuestionInteractionResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: AskQuestionResult
    def __init__(self, result: _Optional[_Union[AskQuestionResult, _Mapping]] = ...) -> None: ...

class SwitchModeRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: SwitchModeRequestResponse_Approved
    rejected: SwitchModeRequestResponse_Rejected
    def __init__(self, approved: _Optional[_Union[SwitchModeRequestResponse_Approved, _Mapping]] = ..., rejected: _Optional[_Union[SwitchModeRequestResponse_Rejected, _Mapping]] = ...) -> None: ...

class SwitchModeRequestResponse_Approved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SwitchModeRequestResponse_Rejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ExaSearchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: ExaSearchRequestResponse_Approved
    rejected: ExaSearchRequestResponse_Rejected
    def __init__(self, approved: _Optional[_Union[ExaSearchRequestResponse_Approved, _Mapping]] = ..., rejected: _Optional[_Union[ExaSearchRequestResponse_Rejected, _Mapping]] = ...) -> None: ...

class ExaSearchRequestResponse_Approved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExaSearchRequestResponse_Rejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ExaFetchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: ExaFetchRequestResponse_Approved
    rejected: ExaFetchRequestResponse_Rejected
    def __init__(self, approved: _Optional[_Union[ExaFetchRequestResponse_Approved, _Mapping]] = ..., rejected: _Optional[_Union[ExaFetchRequestResponse_Rejected, _Mapping]] = ...) -> None: ...

class ExaFetchRequestResponse_Approved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExaFetchRequestResponse_Rejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class CreatePlanRequestResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: CreatePlanResult
    def __init__(self, result: _Optional[_Union[CreatePlanResult, _Mapping]] = ...) -> None: ...

class CreatePlanResult(_message.Message):
    __slots__ = ("plan_uri", "success", "error")
    PLAN_URI_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    plan_uri: str
    success: CreatePlanSuccess
    error: CreatePlanError
    def __init__(self, plan_uri: _Optional[str] = ..., success: _Optional[_Union[CreatePlanSuccess, _Mapping]] = ..., error: _Optional[_Union[CreatePlanError, _Mapping]] = ...) -> None: ...

class CreatePlanSuccess(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreatePlanError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class SetupVmEnvironmentResult(_message.Message):
    __slots__ = ("success",)
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    success: SetupVmEnvironmentSuccess
    def __init__(self, success: _Optional[_Union[SetupVmEnvironmentSuccess, _Mapping]] = ...) -> None: ...

class SetupVmEnvironmentSuccess(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WebFetchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: WebFetchRequestResponse_Approved
    rejected: WebFetchRequestResponse_Rejected
    def __init__(self, approved: _Optional[_Union[WebFetchRequestResponse_Approved, _Mapping]] = ..., rejected: _Optional[_Union[WebFetchRequestResponse_Rejected, _Mapping]] = ...) -> None: ...

class WebFetchRequestResponse_Approved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WebFetchRequestResponse_Rejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class GetUsableModelsRequest(_message.Message):
    __slots__ = ("custom_model_ids",)
    CUSTOM_MODEL_IDS_FIELD_NUMBER: _ClassVar[int]
    custom_model_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, custom_model_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetUsableModelsResponse(_message.Message):
    __slots__ = ("models",)
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelDetails]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelDetails, _Mapping]]] = ...) -> None: ...

class GetServerConfigRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetServerConfigResponse(_message.Message):
    __slots__ = ("http2_config",)
    HTTP2_CONFIG_FIELD_NUMBER: _ClassVar[int]
    http2_config: Http2Config
    def __init__(self, http2_config: _Optional[_Union[Http2Config, str]] = ...) -> None: ...

class AfterAgentResponseRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AfterAgentThoughtRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AgentStoreConflictEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ApplyAgentDiffToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AskQuestionArgs(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AskQuestionToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BeforeSubmitPromptRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CommandClassifierResult(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ComputerUseAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ComputerUseToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConnectScmToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConversationPlan(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConversationSearchHit(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Coordinate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreatePlanArgs(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreatePlanToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CustomSubagent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DebugModeConfig(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Diagnostic(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExaFetchToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExaSearchToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ExtraContextEntry(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FetchToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class FileStateStructure(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GenerateImageToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetDiffResponse_SubmoduleDiff(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GitDiff(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GitRepoInfo(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HookAdditionalContext(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InvocationContext(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMcpResourcesExecResult_McpResource(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMcpResourcesToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class McpFileSystemOptions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class McpInstructions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PostToolUseFailureRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PostToolUseRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PreCompactRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PreToolUseRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReadLintsToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReadMcpResourceToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReadTodosToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RecordScreenToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReflectToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RepositoryIndexingInfo(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RequestContextEnv(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SandboxPolicy(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SearchConversationsToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedCodeSelection(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedConsoleLog(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedCursorCommand(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedCursorRule(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedDocumentation(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedExternalLink(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedFile(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedFolder(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedGitCommit(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedGitDiff(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedGitDiffFromBranchToMain(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedGitPRDiffSelection(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedPastChat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedPullRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedSubagent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedTerminal(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedTerminalSelection(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SelectedUIElement(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SemSearchToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SetupVmEnvironmentToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellCommandParsingResult(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellHookApprovalRequirement(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShellOutputNotificationConfig(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SkillOptions(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SmartModeApproval(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SmartModeClassifierConversationMessage(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SmartModeRiskTarget(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartGrindExecutionToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartGrindPlanningToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StepTiming(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StopRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentPersistedState(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentStartRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentStopRequestQuery(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SwitchModeToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TaskToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ToolCallDelta(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TruncatedToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WebSearchToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WriteShellStdinToolCall(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LsDirectoryTreeNode(_message.Message):
    __slots__ = ("abs_path", "children_dirs", "children_files", "children_were_processed", "full_subtree_extension_counts", "num_files")
    class FullSubtreeExtensionCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ABS_PATH_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_DIRS_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FILES_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_WERE_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    FULL_SUBTREE_EXTENSION_COUNTS_FIELD_NUMBER: _ClassVar[int]
    NUM_FILES_FIELD_NUMBER: _ClassVar[int]
    abs_path: str
    children_dirs: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode]
    children_files: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode_File]
    children_were_processed: bool
    full_subtree_extension_counts: _containers.ScalarMap[str, int]
    num_files: int
    def __init__(self, abs_path: _Optional[str] = ..., children_dirs: _Optional[_Iterable[_Union[LsDirectoryTreeNode, _Mapping]]] = ..., children_files: _Optional[_Iterable[_Union[LsDirectoryTreeNode_File, _Mapping]]] = ..., children_were_processed: _Optional[bool] = ..., full_subtree_extension_counts: _Optional[_Mapping[str, int]] = ..., num_files: _Optional[int] = ...) -> None: ...

class LsDirectoryTreeNode_File(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GrepUnionResult(_message.Message):
    __slots__ = ("count", "files", "content")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    count: GrepCountResult
    files: GrepFilesResult
    content: GrepContentResult
    def __init__(self, count: _Optional[_Union[GrepCountResult, _Mapping]] = ..., files: _Optional[_Union[GrepFilesResult, _Mapping]] = ..., content: _Optional[_Union[GrepContentResult, _Mapping]] = ...) -> None: ...

class GrepCountResult(_message.Message):
    __slots__ = ("counts", "total_files", "total_matches", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[GrepFileCount]
    total_files: int
    total_matches: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, counts: _Optional[_Iterable[_Union[GrepFileCount, _Mapping]]] = ..., total_files: _Optional[int] = ..., total_matches: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepFileCount(_message.Message):
    __slots__ = ("file", "count")
    FILE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    file: str
    count: int
    def __init__(self, file: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class GrepFilesResult(_message.Message):
    __slots__ = ("files", "total_files", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedScalarFieldContainer[str]
    total_files: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, files: _Optional[_Iterable[str]] = ..., total_files: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepContentResult(_message.Message):
    __slots__ = ("matches", "total_lines", "total_matched_lines", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MATCHED_LINES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[GrepFileMatch]
    total_lines: int
    total_matched_lines: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, matches: _Optional[_Iterable[_Union[GrepFileMatch, _Mapping]]] = ..., total_lines: _Optional[int] = ..., total_matched_lines: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepFileMatch(_message.Message):
    __slots__ = ("file", "matches")
    FILE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    file: str
    matches: _containers.RepeatedCompositeFieldContainer[GrepContentMatch]
    def __init__(self, file: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[GrepContentMatch, _Mapping]]] = ...) -> None: ...

class GrepContentMatch(_message.Message):
    __slots__ = ("line_number", "content", "content_truncated", "is_context_line")
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    IS_CONTEXT_LINE_FIELD_NUMBER: _ClassVar[int]
    line_number: int
    content: str
    content_truncated: bool
    is_context_line: bool
    def __init__(self, line_number: _Optional[int] = ..., content: _Optional[str] = ..., content_truncated: _Optional[bool] = ..., is_context_line: _Optional[bool] = ...) -> None: ...

class UpdateTodosToolCall(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: UpdateTodosArgs
    def __init__(self, args: _Optional[_Union[UpdateTodosArgs, _Mapping]] = ...) -> None: ...

class UpdateTodosArgs(_message.Message):
    __slots__ = ("todos", "merge")
    TODOS_FIELD_NUMBER: _ClassVar[int]
    MERGE_FIELD_NUMBER: _ClassVar[int]
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    merge: bool
    def __init__(self, todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ..., merge: _Optional[bool] = ...) -> None: ...

class TodoItem(_message.Message):
    __slots__ = ("id", "content", "status")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: str
    status: int
    def __init__(self, id: _Optional[str] = ..., content: _Optional[str] = ..., status: _Optional[int] = ...) -> None: ...

class ReadToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ReadToolArgs
    result: ReadToolResult
    def __init__(self, args: _Optional[_Union[ReadToolArgs, _Mapping]] = ..., result: _Optional[_Union[ReadToolResult, _Mapping]] = ...) -> None: ...

class ReadToolArgs(_message.Message):
    __slots__ = ("path", "offset", "limit")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    path: str
    offset: int
    limit: int
    def __init__(self, path: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class ReadToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ReadToolSuccess
    error: ReadToolError
    def __init__(self, success: _Optional[_Union[ReadToolSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadToolError, _Mapping]] = ...) -> None: ...

class ReadToolSuccess(_message.Message):
    __slots__ = ("content", "is_empty", "exceeded_limit", "total_lines", "file_size", "path")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_EMPTY_FIELD_NUMBER: _ClassVar[int]
    EXCEEDED_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    content: str
    is_empty: bool
    exceeded_limit: bool
    total_lines: int
    file_size: int
    path: str
    def __init__(self, content: _Optional[str] = ..., is_empty: _Optional[bool] = ..., exceeded_limit: _Optional[bool] = ..., total_lines: _Optional[int] = ..., file_size: _Optional[int] = ..., path: _Optional[str] = ...) -> None: ...

class ReadToolError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class ShellToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ShellArgs
    result: ShellResult
    def __init__(self, args: _Optional[_Union[ShellArgs, _Mapping]] = ..., result: _Optional[_Union[ShellResult, _Mapping]] = ...) -> None: ...

class LsToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: LsArgs
    result: LsResult
    def __init__(self, args: _Optional[_Union[LsArgs, _Mapping]] = ..., result: _Optional[_Union[LsResult, _Mapping]] = ...) -> None: ...

class GrepToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: GrepArgs
    result: GrepResult
    def __init__(self, args: _Optional[_Union[GrepArgs, _Mapping]] = ..., result: _Optional[_Union[GrepResult, _Mapping]] = ...) -> None: ...

class GlobToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: bytes
    result: GlobToolResult
    def __init__(self, args: _Optional[bytes] = ..., result: _Optional[_Union[GlobToolResult, _Mapping]] = ...) -> None: ...

class GlobToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: GlobToolSuccess
    error: GlobToolError
    def __init__(self, success: _Optional[_Union[GlobToolSuccess, _Mapping]] = ..., error: _Optional[_Union[GlobToolError, _Mapping]] = ...) -> None: ...

class GlobToolSuccess(_message.Message):
    __slots__ = ("pattern", "path", "files", "total_files", "client_truncated")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    files: _containers.RepeatedScalarFieldContainer[str]
    total_files: int
    client_truncated: bool
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., files: _Optional[_Iterable[str]] = ..., total_files: _Optional[int] = ..., client_truncated: _Optional[bool] = ...) -> None: ...

class GlobToolError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class DeleteToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: DeleteArgs
    result: DeleteResult
    def __init__(self, args: _Optional[_Union[DeleteArgs, _Mapping]] = ..., result: _Optional[_Union[DeleteResult, _Mapping]] = ...) -> None: ...

class EditToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: EditArgs
    result: EditResult
    def __init__(self, args: _Optional[_Union[EditArgs, _Mapping]] = ..., result: _Optional[_Union[EditResult, _Mapping]] = ...) -> None: ...

class EditArgs(_message.Message):
    __slots__ = ("path", "stream_content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    STREAM_CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    stream_content: str
    def __init__(self, path: _Optional[str] = ..., stream_content: _Optional[str] = ...) -> None: ...

class EditResult(_message.Message):
    __slots__ = ("success", "rejected", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: EditSuccess
    rejected: EditRejected
    error: EditError
    def __init__(self, success: _Optional[_Union[EditSuccess, _Mapping]] = ..., rejected: _Optional[_Union[EditRejected, _Mapping]] = ..., error: _Optional[_Union[EditError, _Mapping]] = ...) -> None: ...

class EditSuccess(_message.Message):
    __slots__ = ("path", "lines_added", "lines_removed", "after_full_file_content", "message")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINES_ADDED_FIELD_NUMBER: _ClassVar[int]
    LINES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    AFTER_FULL_FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    path: str
    lines_added: int
    lines_removed: int
    after_full_file_content: str
    message: str
    def __init__(self, path: _Optional[str] = ..., lines_added: _Optional[int] = ..., lines_removed: _Optional[int] = ..., after_full_file_content: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class EditRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class EditError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class PiReadToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiReadExecArgs
    result: PiReadExecResult
    def __init__(self, args: _Optional[_Union[PiReadExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiReadExecResult, _Mapping]] = ...) -> None: ...

class PiBashToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiBashExecArgs
    result: PiBashExecResult
    def __init__(self, args: _Optional[_Union[PiBashExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiBashExecResult, _Mapping]] = ...) -> None: ...

class PiEditToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiEditExecArgs
    result: PiEditExecResult
    def __init__(self, args: _Optional[_Union[PiEditExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiEditExecResult, _Mapping]] = ...) -> None: ...

class PiWriteToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiWriteExecArgs
    result: PiWriteExecResult
    def __init__(self, args: _Optional[_Union[PiWriteExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiWriteExecResult, _Mapping]] = ...) -> None: ...

class PiGrepToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiGrepExecArgs
    result: PiGrepExecResult
    def __init__(self, args: _Optional[_Union[PiGrepExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiGrepExecResult, _Mapping]] = ...) -> None: ...

class PiFindToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiFindExecArgs
    result: PiFindExecResult
    def __init__(self, args: _Optional[_Union[PiFindExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiFindExecResult, _Mapping]] = ...) -> None: ...

class PiLsToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: PiLsExecArgs
    result: PiLsExecResult
    def __init__(self, args: _Optional[_Union[PiLsExecArgs, _Mapping]] = ..., result: _Optional[_Union[PiLsExecResult, _Mapping]] = ...) -> None: ...
