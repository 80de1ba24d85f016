from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BidiRequestId(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class BidiAppendRequest(_message.Message):
    __slots__ = ("data", "request_id", "append_seqno", "data_binary")
    DATA_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    APPEND_SEQNO_FIELD_NUMBER: _ClassVar[int]
    DATA_BINARY_FIELD_NUMBER: _ClassVar[int]
    data: str
    request_id: BidiRequestId
    append_seqno: int
    data_binary: bytes
    def __init__(self, data: _Optional[str] = ..., request_id: _Optional[_Union[BidiRequestId, _Mapping]] = ..., append_seqno: _Optional[int] = ..., data_binary: _Optional[bytes] = ...) -> None: ...

class BidiAppendResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ErrorDetails(_message.Message):
    __slots__ = ("error", "details", "is_expected")
    class Error(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ERROR_UNSPECIFIED: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_API_KEY: _ClassVar[ErrorDetails.Error]
        ERROR_NOT_LOGGED_IN: _ClassVar[ErrorDetails.Error]
        ERROR_INVALID_AUTH_ID: _ClassVar[ErrorDetails.Error]
        ERROR_NOT_HIGH_ENOUGH_PERMISSIONS: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_MODEL_NAME: _ClassVar[ErrorDetails.Error]
        ERROR_USER_NOT_FOUND: _ClassVar[ErrorDetails.Error]
        ERROR_FREE_USER_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_PRO_USER_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_FREE_USER_USAGE_LIMIT: _ClassVar[ErrorDetails.Error]
        ERROR_PRO_USER_USAGE_LIMIT: _ClassVar[ErrorDetails.Error]
        ERROR_AUTH_TOKEN_NOT_FOUND: _ClassVar[ErrorDetails.Error]
        ERROR_AUTH_TOKEN_EXPIRED: _ClassVar[ErrorDetails.Error]
        ERROR_OPENAI: _ClassVar[ErrorDetails.Error]
        ERROR_OPENAI_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_AGENT_REQUIRES_LOGIN: _ClassVar[ErrorDetails.Error]
        ERROR_MAX_TOKENS: _ClassVar[ErrorDetails.Error]
        ERROR_USER_ABORTED_REQUEST: _ClassVar[ErrorDetails.Error]
        ERROR_GENERIC_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_PRO_USER_ONLY: _ClassVar[ErrorDetails.Error]
        ERROR_TIMEOUT: _ClassVar[ErrorDetails.Error]
        ERROR_GPT_4_VISION_PREVIEW_RATE_LIMIT: _ClassVar[ErrorDetails.Error]
        ERROR_CUSTOM_MESSAGE: _ClassVar[ErrorDetails.Error]
        ERROR_OUTDATED_CLIENT: _ClassVar[ErrorDetails.Error]
        ERROR_CLAUDE_IMAGE_TOO_LARGE: _ClassVar[ErrorDetails.Error]
        ERROR_FILE_NOT_FOUND: _ClassVar[ErrorDetails.Error]
        ERROR_API_KEY_RATE_LIMIT: _ClassVar[ErrorDetails.Error]
        ERROR_DEBOUNCED: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_REQUEST: _ClassVar[ErrorDetails.Error]
        ERROR_REPOSITORY_SERVICE_REPOSITORY_IS_NOT_INITIALIZED: _ClassVar[ErrorDetails.Error]
        ERROR_UNAUTHORIZED: _ClassVar[ErrorDetails.Error]
        ERROR_NOT_FOUND: _ClassVar[ErrorDetails.Error]
        ERROR_DEPRECATED: _ClassVar[ErrorDetails.Error]
        ERROR_RESOURCE_EXHAUSTED: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_USER_API_KEY: _ClassVar[ErrorDetails.Error]
        ERROR_CONVERSATION_TOO_LONG: _ClassVar[ErrorDetails.Error]
        ERROR_USAGE_PRICING_REQUIRED: _ClassVar[ErrorDetails.Error]
        ERROR_USAGE_PRICING_REQUIRED_CHANGEABLE: _ClassVar[ErrorDetails.Error]
        ERROR_GITHUB_NO_USER_CREDENTIALS: _ClassVar[ErrorDetails.Error]
        ERROR_GITHUB_USER_NO_ACCESS: _ClassVar[ErrorDetails.Error]
        ERROR_GITHUB_APP_NO_ACCESS: _ClassVar[ErrorDetails.Error]
        ERROR_GITHUB_MULTIPLE_OWNERS: _ClassVar[ErrorDetails.Error]
        ERROR_RATE_LIMITED: _ClassVar[ErrorDetails.Error]
        ERROR_RATE_LIMITED_CHANGEABLE: _ClassVar[ErrorDetails.Error]
        ERROR_CUSTOM: _ClassVar[ErrorDetails.Error]
        ERROR_HOOKS_BLOCKED: _ClassVar[ErrorDetails.Error]
        ERROR_SUSPICIOUS_USAGE_BLOCKED: _ClassVar[ErrorDetails.Error]
        ERROR_EXTENSION_HOST_TIMEOUT: _ClassVar[ErrorDetails.Error]
        ERROR_NETWORK_ERROR: _ClassVar[ErrorDetails.Error]
        ERROR_PROVIDER_ERROR: _ClassVar[ErrorDetails.Error]
        ERROR_MODEL_BLOCKED: _ClassVar[ErrorDetails.Error]
        ERROR_INTERNAL: _ClassVar[ErrorDetails.Error]
        ERROR_MAX_MODE_REQUIRED: _ClassVar[ErrorDetails.Error]
        ERROR_MODEL_NO_LONGER_SUPPORTED: _ClassVar[ErrorDetails.Error]
        ERROR_PRICING_WARNING: _ClassVar[ErrorDetails.Error]
        ERROR_SLOW_POOL: _ClassVar[ErrorDetails.Error]
        ERROR_UNSUPPORTED_REGION: _ClassVar[ErrorDetails.Error]
        ERROR_ACCOUNT_CLOSED: _ClassVar[ErrorDetails.Error]
    ERROR_UNSPECIFIED: ErrorDetails.Error
    ERROR_BAD_API_KEY: ErrorDetails.Error
    ERROR_NOT_LOGGED_IN: ErrorDetails.Error
    ERROR_INVALID_AUTH_ID: ErrorDetails.Error
    ERROR_NOT_HIGH_ENOUGH_PERMISSIONS: ErrorDetails.Error
    ERROR_BAD_MODEL_NAME: ErrorDetails.Error
    ERROR_USER_NOT_FOUND: ErrorDetails.Error
    ERROR_FREE_USER_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_PRO_USER_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_FREE_USER_USAGE_LIMIT: ErrorDetails.Error
    ERROR_PRO_USER_USAGE_LIMIT: ErrorDetails.Error
    ERROR_AUTH_TOKEN_NOT_FOUND: ErrorDetails.Error
    ERROR_AUTH_TOKEN_EXPIRED: ErrorDetails.Error
    ERROR_OPENAI: ErrorDetails.Error
    ERROR_OPENAI_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_AGENT_REQUIRES_LOGIN: ErrorDetails.Error
    ERROR_MAX_TOKENS: ErrorDetails.Error
    ERROR_USER_ABORTED_REQUEST: ErrorDetails.Error
    ERROR_GENERIC_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_PRO_USER_ONLY: ErrorDetails.Error
    ERROR_TIMEOUT: ErrorDetails.Error
    ERROR_GPT_4_VISION_PREVIEW_RATE_LIMIT: ErrorDetails.Error
    ERROR_CUSTOM_MESSAGE: ErrorDetails.Error
    ERROR_OUTDATED_CLIENT: ErrorDetails.Error
    ERROR_CLAUDE_IMAGE_TOO_LARGE: ErrorDetails.Error
    ERROR_FILE_NOT_FOUND: ErrorDetails.Error
    ERROR_API_KEY_RATE_LIMIT: ErrorDetails.Error
    ERROR_DEBOUNCED: ErrorDetails.Error
    ERROR_BAD_REQUEST: ErrorDetails.Error
    ERROR_REPOSITORY_SERVICE_REPOSITORY_IS_NOT_INITIALIZED: ErrorDetails.Error
    ERROR_UNAUTHORIZED: ErrorDetails.Error
    ERROR_NOT_FOUND: ErrorDetails.Error
    ERROR_DEPRECATED: ErrorDetails.Error
    ERROR_RESOURCE_EXHAUSTED: ErrorDetails.Error
    ERROR_BAD_USER_API_KEY: ErrorDetails.Error
    ERROR_CONVERSATION_TOO_LONG: ErrorDetails.Error
    ERROR_USAGE_PRICING_REQUIRED: ErrorDetails.Error
    ERROR_USAGE_PRICING_REQUIRED_CHANGEABLE: ErrorDetails.Error
    ERROR_GITHUB_NO_USER_CREDENTIALS: ErrorDetails.Error
    ERROR_GITHUB_USER_NO_ACCESS: ErrorDetails.Error
    ERROR_GITHUB_APP_NO_ACCESS: ErrorDetails.Error
    ERROR_GITHUB_MULTIPLE_OWNERS: ErrorDetails.Error
    ERROR_RATE_LIMITED: ErrorDetails.Error
    ERROR_RATE_LIMITED_CHANGEABLE: ErrorDetails.Error
    ERROR_CUSTOM: ErrorDetails.Error
    ERROR_HOOKS_BLOCKED: ErrorDetails.Error
    ERROR_SUSPICIOUS_USAGE_BLOCKED: ErrorDetails.Error
    ERROR_EXTENSION_HOST_TIMEOUT: ErrorDetails.Error
    ERROR_NETWORK_ERROR: ErrorDetails.Error
    ERROR_PROVIDER_ERROR: ErrorDetails.Error
    ERROR_MODEL_BLOCKED: ErrorDetails.Error
    ERROR_INTERNAL: ErrorDetails.Error
    ERROR_MAX_MODE_REQUIRED: ErrorDetails.Error
    ERROR_MODEL_NO_LONGER_SUPPORTED: ErrorDetails.Error
    ERROR_PRICING_WARNING: ErrorDetails.Error
    ERROR_SLOW_POOL: ErrorDetails.Error
    ERROR_UNSUPPORTED_REGION: ErrorDetails.Error
    ERROR_ACCOUNT_CLOSED: ErrorDetails.Error
    ERROR_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    IS_EXPECTED_FIELD_NUMBER: _ClassVar[int]
    error: ErrorDetails.Error
    details: CustomErrorDetails
    is_expected: bool
    def __init__(self, error: _Optional[_Union[ErrorDetails.Error, str]] = ..., details: _Optional[_Union[CustomErrorDetails, _Mapping]] = ..., is_expected: _Optional[bool] = ...) -> None: ...

class CustomErrorDetails(_message.Message):
    __slots__ = ("title", "detail", "allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown", "is_retryable", "show_request_id", "should_show_immediate_error", "additional_info", "buttons", "plan_choices", "analytics_metadata")
    class AdditionalInfoEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ALLOW_COMMAND_LINKS_POTENTIALLY_UNSAFE_PLEASE_ONLY_USE_FOR_HANDWRITTEN_TRUSTED_MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    IS_RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    SHOW_REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SHOULD_SHOW_IMMEDIATE_ERROR_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_INFO_FIELD_NUMBER: _ClassVar[int]
    BUTTONS_FIELD_NUMBER: _ClassVar[int]
    PLAN_CHOICES_FIELD_NUMBER: _ClassVar[int]
    ANALYTICS_METADATA_FIELD_NUMBER: _ClassVar[int]
    title: str
    detail: str
    allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown: bool
    is_retryable: bool
    show_request_id: bool
    should_show_immediate_error: bool
    additional_info: _containers.ScalarMap[str, str]
    buttons: _containers.RepeatedCompositeFieldContainer[ErrorButton]
    plan_choices: _containers.RepeatedCompositeFieldContainer[PlanChoice]
    analytics_metadata: ErrorAnalyticsMetadata
    def __init__(self, title: _Optional[str] = ..., detail: _Optional[str] = ..., allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown: _Optional[bool] = ..., is_retryable: _Optional[bool] = ..., show_request_id: _Optional[bool] = ..., should_show_immediate_error: _Optional[bool] = ..., additional_info: _Optional[_Mapping[str, str]] = ..., buttons: _Optional[_Iterable[_Union[ErrorButton, _Mapping]]] = ..., plan_choices: _Optional[_Iterable[_Union[PlanChoice, _Mapping]]] = ..., analytics_metadata: _Optional[_Union[ErrorAnalyticsMetadata, _Mapping]] = ...) -> None: ...

class ErrorAnalyticsMetadata(_message.Message):
    __slots__ = ("action_required",)
    ACTION_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    action_required: str
    def __init__(self, action_required: _Optional[str] = ...) -> None: ...

class ErrorButton(_message.Message):
    __slots__ = ("label", "upgrade", "switch_model", "configure_spend_limit", "url", "upgrade_choice", "dashboard_action", "reload_window", "client_action")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODEL_FIELD_NUMBER: _ClassVar[int]
    CONFIGURE_SPEND_LIMIT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_CHOICE_FIELD_NUMBER: _ClassVar[int]
    DASHBOARD_ACTION_FIELD_NUMBER: _ClassVar[int]
    RELOAD_WINDOW_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ACTION_FIELD_NUMBER: _ClassVar[int]
    label: str
    upgrade: UpgradeAction
    switch_model: SwitchModelAction
    configure_spend_limit: ConfigureSpendLimitAction
    url: UrlAction
    upgrade_choice: UpgradeChoice
    dashboard_action: DashboardAction
    reload_window: ReloadWindowAction
    client_action: ClientAction
    def __init__(self, label: _Optional[str] = ..., upgrade: _Optional[_Union[UpgradeAction, _Mapping]] = ..., switch_model: _Optional[_Union[SwitchModelAction, _Mapping]] = ..., configure_spend_limit: _Optional[_Union[ConfigureSpendLimitAction, _Mapping]] = ..., url: _Optional[_Union[UrlAction, _Mapping]] = ..., upgrade_choice: _Optional[_Union[UpgradeChoice, _Mapping]] = ..., dashboard_action: _Optional[_Union[DashboardAction, _Mapping]] = ..., reload_window: _Optional[_Union[ReloadWindowAction, _Mapping]] = ..., client_action: _Optional[_Union[ClientAction, _Mapping]] = ...) -> None: ...

class UpgradeAction(_message.Message):
    __slots__ = ("membership_to_upgrade_to", "try_immediate_upgrade", "allow_trial")
    MEMBERSHIP_TO_UPGRADE_TO_FIELD_NUMBER: _ClassVar[int]
    TRY_IMMEDIATE_UPGRADE_FIELD_NUMBER: _ClassVar[int]
    ALLOW_TRIAL_FIELD_NUMBER: _ClassVar[int]
    membership_to_upgrade_to: str
    try_immediate_upgrade: bool
    allow_trial: bool
    def __init__(self, membership_to_upgrade_to: _Optional[str] = ..., try_immediate_upgrade: _Optional[bool] = ..., allow_trial: _Optional[bool] = ...) -> None: ...

class SwitchModelAction(_message.Message):
    __slots__ = ("suggested_model", "parameters", "max_mode")
    class ModelParameterValue(_message.Message):
        __slots__ = ("id", "value")
        ID_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        id: str
        value: str
        def __init__(self, id: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SUGGESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    suggested_model: str
    parameters: _containers.RepeatedCompositeFieldContainer[SwitchModelAction.ModelParameterValue]
    max_mode: bool
    def __init__(self, suggested_model: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[SwitchModelAction.ModelParameterValue, _Mapping]]] = ..., max_mode: _Optional[bool] = ...) -> None: ...

class ConfigureSpendLimitAction(_message.Message):
    __slots__ = ("confirm_label",)
    CONFIRM_LABEL_FIELD_NUMBER: _ClassVar[int]
    confirm_label: str
    def __init__(self, confirm_label: _Optional[str] = ...) -> None: ...

class UrlAction(_message.Message):
    __slots__ = ("url",)
    URL_FIELD_NUMBER: _ClassVar[int]
    url: str
    def __init__(self, url: _Optional[str] = ...) -> None: ...

class UpgradeChoice(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DashboardAction(_message.Message):
    __slots__ = ("action", "args", "success_message")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    action: str
    args: _containers.ScalarMap[str, str]
    success_message: str
    def __init__(self, action: _Optional[str] = ..., args: _Optional[_Mapping[str, str]] = ..., success_message: _Optional[str] = ...) -> None: ...

class ReloadWindowAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ClientAction(_message.Message):
    __slots__ = ("command_id", "args")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    args: _containers.ScalarMap[str, str]
    def __init__(self, command_id: _Optional[str] = ..., args: _Optional[_Mapping[str, str]] = ...) -> None: ...

class PlanChoice(_message.Message):
    __slots__ = ("label", "sublabel", "description", "value")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SUBLABEL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    label: str
    sublabel: str
    description: str
    value: str
    def __init__(self, label: _Optional[str] = ..., sublabel: _Optional[str] = ..., description: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class BidiPollRequest(_message.Message):
    __slots__ = ("request_id", "poll_mode")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    POLL_MODE_FIELD_NUMBER: _ClassVar[int]
    request_id: BidiRequestId
    poll_mode: int
    def __init__(self, request_id: _Optional[_Union[BidiRequestId, _Mapping]] = ..., poll_mode: _Optional[int] = ...) -> None: ...

class BidiPollResponse(_message.Message):
    __slots__ = ("seqno", "data", "eof")
    SEQNO_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    EOF_FIELD_NUMBER: _ClassVar[int]
    seqno: int
    data: str
    eof: bool
    def __init__(self, seqno: _Optional[int] = ..., data: _Optional[str] = ..., eof: _Optional[bool] = ...) -> None: ...

class AvailableModelsRequest(_message.Message):
    __slots__ = ("is_nightly", "include_long_context_models", "exclude_max_named_models", "additional_model_names", "use_model_parameters", "include_hidden_models", "do_not_use_markdown", "use_cloud_agent_effort_modes")
    IS_NIGHTLY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LONG_CONTEXT_MODELS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_MAX_NAMED_MODELS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_MODEL_NAMES_FIELD_NUMBER: _ClassVar[int]
    USE_MODEL_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HIDDEN_MODELS_FIELD_NUMBER: _ClassVar[int]
    DO_NOT_USE_MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    USE_CLOUD_AGENT_EFFORT_MODES_FIELD_NUMBER: _ClassVar[int]
    is_nightly: bool
    include_long_context_models: bool
    exclude_max_named_models: bool
    additional_model_names: _containers.RepeatedScalarFieldContainer[str]
    use_model_parameters: bool
    include_hidden_models: bool
    do_not_use_markdown: bool
    use_cloud_agent_effort_modes: bool
    def __init__(self, is_nightly: _Optional[bool] = ..., include_long_context_models: _Optional[bool] = ..., exclude_max_named_models: _Optional[bool] = ..., additional_model_names: _Optional[_Iterable[str]] = ..., use_model_parameters: _Optional[bool] = ..., include_hidden_models: _Optional[bool] = ..., do_not_use_markdown: _Optional[bool] = ..., use_cloud_agent_effort_modes: _Optional[bool] = ...) -> None: ...

class AvailableModelsResponse(_message.Message):
    __slots__ = ("model_names", "models", "use_model_parameters")
    MODEL_NAMES_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    USE_MODEL_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    model_names: _containers.RepeatedScalarFieldContainer[str]
    models: _containers.RepeatedCompositeFieldContainer[AvailableModel]
    use_model_parameters: bool
    def __init__(self, model_names: _Optional[_Iterable[str]] = ..., models: _Optional[_Iterable[_Union[AvailableModel, _Mapping]]] = ..., use_model_parameters: _Optional[bool] = ...) -> None: ...

class AvailableModel(_message.Message):
    __slots__ = ("name", "is_chat_only", "supports_agent", "supports_thinking", "supports_images", "supports_max_mode", "context_token_limit", "context_token_limit_for_max_mode", "client_display_name", "supports_non_max_mode", "parameter_definitions", "variants", "is_hidden", "legacy_slugs", "id_aliases", "requires_data_retention")
    NAME_FIELD_NUMBER: _ClassVar[int]
    IS_CHAT_ONLY_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_AGENT_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_THINKING_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_IMAGES_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TOKEN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_TOKEN_LIMIT_FOR_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_NON_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    PARAMETER_DEFINITIONS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    IS_HIDDEN_FIELD_NUMBER: _ClassVar[int]
    LEGACY_SLUGS_FIELD_NUMBER: _ClassVar[int]
    ID_ALIASES_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_DATA_RETENTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    is_chat_only: bool
    supports_agent: bool
    supports_thinking: bool
    supports_images: bool
    supports_max_mode: bool
    context_token_limit: int
    context_token_limit_for_max_mode: int
    client_display_name: str
    supports_non_max_mode: bool
    parameter_definitions: _containers.RepeatedCompositeFieldContainer[ModelParameterDefinition]
    variants: _containers.RepeatedCompositeFieldContainer[ModelVariantConfig]
    is_hidden: bool
    legacy_slugs: _containers.RepeatedScalarFieldContainer[str]
    id_aliases: _containers.RepeatedScalarFieldContainer[str]
    requires_data_retention: bool
    def __init__(self, name: _Optional[str] = ..., is_chat_only: _Optional[bool] = ..., supports_agent: _Optional[bool] = ..., supports_thinking: _Optional[bool] = ..., supports_images: _Optional[bool] = ..., supports_max_mode: _Optional[bool] = ..., context_token_limit: _Optional[int] = ..., context_token_limit_for_max_mode: _Optional[int] = ..., client_display_name: _Optional[str] = ..., supports_non_max_mode: _Optional[bool] = ..., parameter_definitions: _Optional[_Iterable[_Union[ModelParameterDefinition, _Mapping]]] = ..., variants: _Optional[_Iterable[_Union[ModelVariantConfig, _Mapping]]] = ..., is_hidden: _Optional[bool] = ..., legacy_slugs: _Optional[_Iterable[str]] = ..., id_aliases: _Optional[_Iterable[str]] = ..., requires_data_retention: _Optional[bool] = ...) -> None: ...

class ModelParameterValue(_message.Message):
    __slots__ = ("id", "value")
    ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    id: str
    value: str
    def __init__(self, id: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class ModelVariantConfig(_message.Message):
    __slots__ = ("parameter_values", "display_name", "is_max_mode", "is_default_max_config", "is_default_non_max_config", "variant_string_representation", "legacy_slug")
    PARAMETER_VALUES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    IS_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_MAX_CONFIG_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_NON_MAX_CONFIG_FIELD_NUMBER: _ClassVar[int]
    VARIANT_STRING_REPRESENTATION_FIELD_NUMBER: _ClassVar[int]
    LEGACY_SLUG_FIELD_NUMBER: _ClassVar[int]
    parameter_values: _containers.RepeatedCompositeFieldContainer[ModelParameterValue]
    display_name: str
    is_max_mode: bool
    is_default_max_config: bool
    is_default_non_max_config: bool
    variant_string_representation: str
    legacy_slug: str
    def __init__(self, parameter_values: _Optional[_Iterable[_Union[ModelParameterValue, _Mapping]]] = ..., display_name: _Optional[str] = ..., is_max_mode: _Optional[bool] = ..., is_default_max_config: _Optional[bool] = ..., is_default_non_max_config: _Optional[bool] = ..., variant_string_representation: _Optional[str] = ..., legacy_slug: _Optional[str] = ...) -> None: ...

class ModelParameterDefinition(_message.Message):
    __slots__ = ("id", "name", "parameter_type")
    class ParameterValue(_message.Message):
        __slots__ = ("value", "display_name", "increases_model_cost")
        VALUE_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        INCREASES_MODEL_COST_FIELD_NUMBER: _ClassVar[int]
        value: str
        display_name: str
        increases_model_cost: bool
        def __init__(self, value: _Optional[str] = ..., display_name: _Optional[str] = ..., increases_model_cost: _Optional[bool] = ...) -> None: ...
    class BooleanParameterDefinition(_message.Message):
        __slots__ = ("values",)
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values: _containers.RepeatedCompositeFieldContainer[ModelParameterDefinition.ParameterValue]
        def __init__(self, values: _Optional[_Iterable[_Union[ModelParameterDefinition.ParameterValue, _Mapping]]] = ...) -> None: ...
    class EnumParameterDefinition(_message.Message):
        __slots__ = ("values",)
        VALUES_FIELD_NUMBER: _ClassVar[int]
        values: _containers.RepeatedCompositeFieldContainer[ModelParameterDefinition.ParameterValue]
        def __init__(self, values: _Optional[_Iterable[_Union[ModelParameterDefinition.ParameterValue, _Mapping]]] = ...) -> None: ...
    class ModelParameterType(_message.Message):
        __slots__ = ("boolean_parameter", "enum_parameter")
        BOOLEAN_PARAMETER_FIELD_NUMBER: _ClassVar[int]
        ENUM_PARAMETER_FIELD_NUMBER: _ClassVar[int]
        boolean_parameter: ModelParameterDefinition.BooleanParameterDefinition
        enum_parameter: ModelParameterDefinition.EnumParameterDefinition
        def __init__(self, boolean_parameter: _Optional[_Union[ModelParameterDefinition.BooleanParameterDefinition, _Mapping]] = ..., enum_parameter: _Optional[_Union[ModelParameterDefinition.EnumParameterDefinition, _Mapping]] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETER_TYPE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    parameter_type: ModelParameterDefinition.ModelParameterType
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., parameter_type: _Optional[_Union[ModelParameterDefinition.ModelParameterType, _Mapping]] = ...) -> None: ...

class GetCurrentPeriodUsageRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCurrentPeriodUsageResponse(_message.Message):
    __slots__ = ("billing_cycle_start", "billing_cycle_end", "plan_usage", "spend_limit_usage", "display_threshold", "enabled", "display_message", "auto_model_selected_display_message", "named_model_selected_display_message")
    BILLING_CYCLE_START_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_END_FIELD_NUMBER: _ClassVar[int]
    PLAN_USAGE_FIELD_NUMBER: _ClassVar[int]
    SPEND_LIMIT_USAGE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    AUTO_MODEL_SELECTED_DISPLAY_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    NAMED_MODEL_SELECTED_DISPLAY_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    billing_cycle_start: int
    billing_cycle_end: int
    plan_usage: PlanUsage
    spend_limit_usage: SpendLimitUsage
    display_threshold: int
    enabled: bool
    display_message: str
    auto_model_selected_display_message: str
    named_model_selected_display_message: str
    def __init__(self, billing_cycle_start: _Optional[int] = ..., billing_cycle_end: _Optional[int] = ..., plan_usage: _Optional[_Union[PlanUsage, _Mapping]] = ..., spend_limit_usage: _Optional[_Union[SpendLimitUsage, _Mapping]] = ..., display_threshold: _Optional[int] = ..., enabled: _Optional[bool] = ..., display_message: _Optional[str] = ..., auto_model_selected_display_message: _Optional[str] = ..., named_model_selected_display_message: _Optional[str] = ...) -> None: ...

class PlanUsage(_message.Message):
    __slots__ = ("total_spend", "included_spend", "bonus_spend", "remaining", "limit", "remaining_bonus", "bonus_tooltip", "auto_spend", "api_spend", "auto_limit", "api_limit", "auto_percent_used", "api_percent_used", "total_percent_used")
    TOTAL_SPEND_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_SPEND_FIELD_NUMBER: _ClassVar[int]
    BONUS_SPEND_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    REMAINING_BONUS_FIELD_NUMBER: _ClassVar[int]
    BONUS_TOOLTIP_FIELD_NUMBER: _ClassVar[int]
    AUTO_SPEND_FIELD_NUMBER: _ClassVar[int]
    API_SPEND_FIELD_NUMBER: _ClassVar[int]
    AUTO_LIMIT_FIELD_NUMBER: _ClassVar[int]
    API_LIMIT_FIELD_NUMBER: _ClassVar[int]
    AUTO_PERCENT_USED_FIELD_NUMBER: _ClassVar[int]
    API_PERCENT_USED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PERCENT_USED_FIELD_NUMBER: _ClassVar[int]
    total_spend: int
    included_spend: int
    bonus_spend: int
    remaining: int
    limit: int
    remaining_bonus: bool
    bonus_tooltip: str
    auto_spend: int
    api_spend: int
    auto_limit: int
    api_limit: int
    auto_percent_used: float
    api_percent_used: float
    total_percent_used: float
    def __init__(self, total_spend: _Optional[int] = ..., included_spend: _Optional[int] = ..., bonus_spend: _Optional[int] = ..., remaining: _Optional[int] = ..., limit: _Optional[int] = ..., remaining_bonus: _Optional[bool] = ..., bonus_tooltip: _Optional[str] = ..., auto_spend: _Optional[int] = ..., api_spend: _Optional[int] = ..., auto_limit: _Optional[int] = ..., api_limit: _Optional[int] = ..., auto_percent_used: _Optional[float] = ..., api_percent_used: _Optional[float] = ..., total_percent_used: _Optional[float] = ...) -> None: ...

class SpendLimitUsage(_message.Message):
    __slots__ = ("total_spend", "pooled_limit", "pooled_used", "pooled_remaining", "individual_limit", "individual_used", "individual_remaining", "limit_type")
    TOTAL_SPEND_FIELD_NUMBER: _ClassVar[int]
    POOLED_LIMIT_FIELD_NUMBER: _ClassVar[int]
    POOLED_USED_FIELD_NUMBER: _ClassVar[int]
    POOLED_REMAINING_FIELD_NUMBER: _ClassVar[int]
    INDIVIDUAL_LIMIT_FIELD_NUMBER: _ClassVar[int]
    INDIVIDUAL_USED_FIELD_NUMBER: _ClassVar[int]
    INDIVIDUAL_REMAINING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_TYPE_FIELD_NUMBER: _ClassVar[int]
    total_spend: int
    pooled_limit: int
    pooled_used: int
    pooled_remaining: int
    individual_limit: int
    individual_used: int
    individual_remaining: int
    limit_type: str
    def __init__(self, total_spend: _Optional[int] = ..., pooled_limit: _Optional[int] = ..., pooled_used: _Optional[int] = ..., pooled_remaining: _Optional[int] = ..., individual_limit: _Optional[int] = ..., individual_used: _Optional[int] = ..., individual_remaining: _Optional[int] = ..., limit_type: _Optional[str] = ...) -> None: ...

class GetPlanInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetPlanInfoResponse(_message.Message):
    __slots__ = ("plan_info",)
    PLAN_INFO_FIELD_NUMBER: _ClassVar[int]
    plan_info: PlanInfo
    def __init__(self, plan_info: _Optional[_Union[PlanInfo, _Mapping]] = ...) -> None: ...

class PlanInfo(_message.Message):
    __slots__ = ("plan_name", "included_amount_cents", "price", "billing_cycle_end")
    PLAN_NAME_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_AMOUNT_CENTS_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    BILLING_CYCLE_END_FIELD_NUMBER: _ClassVar[int]
    plan_name: str
    included_amount_cents: int
    price: str
    billing_cycle_end: int
    def __init__(self, plan_name: _Optional[str] = ..., included_amount_cents: _Optional[int] = ..., price: _Optional[str] = ..., billing_cycle_end: _Optional[int] = ...) -> None: ...

class GetHardLimitRequest(_message.Message):
    __slots__ = ("team_id",)
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    team_id: int
    def __init__(self, team_id: _Optional[int] = ...) -> None: ...

class GetHardLimitResponse(_message.Message):
    __slots__ = ("hard_limit", "no_usage_based_allowed")
    HARD_LIMIT_FIELD_NUMBER: _ClassVar[int]
    NO_USAGE_BASED_ALLOWED_FIELD_NUMBER: _ClassVar[int]
    hard_limit: int
    no_usage_based_allowed: bool
    def __init__(self, hard_limit: _Optional[int] = ..., no_usage_based_allowed: _Optional[bool] = ...) -> None: ...
