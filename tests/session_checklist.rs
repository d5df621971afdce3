//! The server checklist of the 2025-era protocol (revision 2025-11-25,
//! with 2025-06-18 and 2025-03-26 by negotiation), row by row: which test
//! proves each rule, or why the runtime has nothing to prove.
//!
//! Tests here speak to the server over stdio (an in-memory connection, or
//! the `stdio_server` process) or through `Server::http_service` as a tower
//! service, reading event streams event by event. Every message a session
//! receives is checked against the official 2025-11-25 JSON Schema, an
//! answer against the result type of the method it answers. "Nothing more
//! is sent" and ten-minute timeouts are checked on tokio's paused clock,
//! which moves only once every task waits: no sleeping, no racing.
//!
//! | Row | Rule | Proved by |
//! |---|---|---|
//! | 1 | `initialize` answered with `protocolVersion`, `capabilities`, `serverInfo` | `lifecycle::initialize_over_http_names_the_version_the_capabilities_and_the_server`; stdio: `session_stdio::initialize_echoes_a_served_version_and_counters_any_other` |
//! | 2 | a served version echoed, any other countered with 2025-11-25 | the same two tests |
//! | 3 | the negotiated version respected | `lifecycle::each_version_is_sent_only_the_fields_it_knows`; batches: row 34; event ids: row 30 |
//! | 4 | no request but `ping` before `initialized` | `gates::no_request_but_ping_before_initialized_over_stdio`, `gates::no_request_but_ping_before_initialized_over_http`: every message sent before `notifications/initialized` is read, a progress notification among them, and a handler's request to the client waits for it |
//! | 5 | sampling, elicitation, roots only when declared; URL mode, sampling tools and context only with their sub-capability | `lifecycle::the_client_is_asked_only_for_what_it_declared`, `session_stdio::without_the_capability_the_client_is_not_asked` |
//! | 6 | notifications never answered; our request ids never reused | `lifecycle::notifications_get_no_answer_and_request_ids_are_never_reused` |
//! | 7 | `ping` answered `{}`, before initialization completes too | `lifecycle::ping_is_answered_with_an_empty_result_before_initialized_too`; before `initialize` on stdio: `session_stdio::before_initialize_only_ping_is_answered_and_errors_name_the_versions`. Over HTTP a `ping` before `initialize` has no session to belong to: the stateless path answers it (400, -32602 naming `initialize`) |
//! | 8 | cancelled requests stopped and not answered; bad or late notices ignored | `lifecycle::bad_and_late_cancellations_are_ignored`, `session_stdio::a_cancelled_request_gets_no_answer`, `session_http::a_closed_connection_does_not_cancel_a_session_request_but_cancelled_does` |
//! | 9 | progress only for a live token, increasing, none after the answer | `features::progress_only_for_a_live_token_and_only_increasing` |
//! | 10 | `logging` declared; `setLevel` holds for the session | `features::logging_is_declared_and_the_level_holds_for_the_session`, `session_stdio::the_session_log_level_filters_and_progress_reaches_the_client`. What a log says (no secrets, no personal data) is the handler's to decide |
//! | 11 | `tools`, `resources`, `prompts`, `completions` declared when offered | `features::capabilities_declare_exactly_the_features_offered` |
//! | 12 | `outputSchema` root an object, `structuredContent` conforming | `features::structured_output_has_an_object_schema_and_conforms_to_it` (a struct, and a list wrapped in an object); a tool given a non-object `outputSchema` by hand (legal at 2026-07-28) is listed and answered without it: `gates::a_non_object_output_schema_never_reaches_a_session` |
//! | 13 | failures and invalid arguments as `isError`; unknown tool -32602 | `features::tool_failures_are_results_and_an_unknown_tool_is_invalid_params` |
//! | 14 | tool inputs validated | the same test (arguments checked against their type before the handler runs). Access control, rate limits and output sanitizing belong to handlers and to layers in front of the service |
//! | 15 | missing resource -32002; URIs validated; binaries base64 | `features::resources_missing_malformed_and_binary`, `session_stdio::a_missing_resource_is_32002_on_a_session_and_32602_without` |
//! | 16 | `resources/updated` only for subscribed URIs; `list_changed` only when declared | `features::updates_only_for_subscribed_uris_and_list_changes_only_when_declared` (HTTP, GET stream), `session_stdio::changes_reach_the_session_and_updates_only_subscribers` |
//! | 17 | at most 100 completion values; inputs validated | `features::completion_carries_at_most_100_values`. Rate limits belong to completers and layers in front |
//! | 18 | no secrets by form elicitation; state bound to the user; URL flow user checked | The handler's, with what the runtime gives it: the runtime sends the elicitations handlers build (a secret is asked for by URL, sent only to a client declaring `elicitation.url`: row 5), and on a protected server a handler reads the verified caller to bind its state and its URL flow to that user: `scopes::the_handler_reads_the_verified_caller`, `oauth_scopes::the_metadata_offers_every_declared_scope_and_the_handler_sees_its_caller`. The runtime itself ties a client's answer to its session and request id, and binds the session to who began it: on an authenticated server the record keeps the token's identity (issuer and subject, or client id for a token without a subject), a request bearing another identity's valid token (POST, GET stream, resumption, DELETE) is the 404 of an unknown session and changes nothing, not even the idle deadline, and a new token of the same identity keeps working: `oauth::a_2025_session_answers_only_the_identity_that_began_it`, `oauth::a_strangers_requests_keep_no_session_alive`; on a replica that never saw the session: `oauth::a_replica_that_never_saw_a_session_knows_its_owner_from_the_record`, `oauth::replicas_sharing_redis_know_a_sessions_owner_from_the_record` |
//! | 19 | `elicitation/complete` only to the initiating client; -32042 only for URL elicitation | Not applicable: the runtime sends neither, and offers no way to |
//! | 20 | sampling tool loops well formed | Not applicable: the loop is the handler's; the runtime sends `tools` only to clients declaring `sampling.tools` (row 5) |
//! | 21 | `params.task` ignored when `tasks` is not declared | `lifecycle::a_task_request_is_served_as_a_plain_request` (no `tasks` capability, no `execution`, `tasks/*` -32601) |
//! | 22 | stdio: stdout only newline-delimited messages, logs on stderr | `transport::a_process_writes_only_messages_on_stdout_and_logs_on_stderr`, `transport::line_breaks_inside_a_message_stay_escaped_on_one_line` |
//! | 23 | HTTP: one endpoint, GET or 405; 202 with an empty body for notifications and answers | `transport::notifications_and_answers_are_202_with_an_empty_body`, `session_http::notifications_and_answers_are_202_and_answers_reach_the_waiting_request` |
//! | 24 | requests answered as JSON or an event stream ending after the answer | `transport::requests_are_answered_as_json_or_a_stream_ending_with_the_answer` |
//! | 25 | each message on one stream; no answers on the GET stream but when resuming | `transport::each_message_travels_on_one_stream_and_the_get_stream_has_no_answers`; resuming: `session_http::last_event_id_replays_the_stream_it_names_and_no_other` |
//! | 26 | session ids visible ASCII, random; not used for authorization | `transport::session_ids_are_visible_ascii_random_and_distinct`; the runtime authorizes nothing with them |
//! | 27 | 400 without a session id; 404 for an ended session | `session_http::a_2025_version_without_a_session_id_is_400`, `session_http::unknown_and_deleted_sessions_are_404` |
//! | 28 | 400 for an invalid or unsupported `MCP-Protocol-Version`; absent means the negotiated version | `transport::an_unknown_protocol_version_header_is_400`, `session_http::a_request_naming_another_era_on_a_session_is_400` |
//! | 29 | event ids unique in the session, naming their stream; only that stream replayed | `transport::event_ids_are_unique_across_the_streams_of_a_session`, `session_http::last_event_id_replays_the_stream_it_names_and_no_other` |
//! | 30 | priming event first, `retry:` before closing, at 2025-11-25 only | `transport::priming_events_and_retry_only_at_2025_11_25` |
//! | 31 | a disconnection is not a cancellation | `session_http::a_closed_connection_does_not_cancel_a_session_request_but_cancelled_does` |
//! | 32 | a foreign `Origin` is 403 | `transport::a_foreign_origin_is_403_on_the_session_path` |
//! | 33 | bearer tokens checked on every request | With `Authorization` (feature `auth`): `oauth::a_2025_session_needs_the_token_on_every_request` (401 without a token on `initialize`, on a session's requests and notifications, its GET and its DELETE); bound to the audience: `oauth::a_token_for_another_resource_is_refused`, and every other refusal in `oauth`; 403 for a scope the caller lacks, on a session too: `scopes::a_2025_session_is_held_to_the_same_scopes`. A server built without it checks no token (a layer in front of `http_service` may, with `ServerBuilder::authenticated_by_layer`); stdio carries none |
//! | 34 | batches at 2025-03-26; `initialize` never inside one | `lifecycle::initialize_is_never_served_inside_a_batch`, `session_stdio::batches_only_for_the_oldest_version`, `session_http::batches_are_served_at_2025_03_26_only` |
//! | 35 | our requests time out, then `notifications/cancelled` | `lifecycle::an_unanswered_request_to_the_client_times_out_and_is_cancelled` (the ten-minute timeout, on the paused clock) |

#[path = "session_checklist/features.rs"]
mod features;
#[path = "session_checklist/fixture.rs"]
mod fixture;
#[path = "session_checklist/gates.rs"]
mod gates;
#[path = "session_checklist/http.rs"]
mod http;
#[path = "session_checklist/lifecycle.rs"]
mod lifecycle;
#[path = "session_checklist/stdio.rs"]
mod stdio;
#[path = "session_checklist/transport.rs"]
mod transport;
