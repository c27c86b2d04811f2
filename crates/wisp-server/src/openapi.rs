//! `/api/openapi.json`, built from the types the handlers take and return: the component
//! schemas are derived (`schemars`) from `wisp-protocol` and the query types of this crate, so
//! a field added there is documented without a word here. This file holds what a type cannot
//! say: the paths, methods, statuses and the links between operations.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};
use wisp_protocol::{self as p, limits};

use crate::{EventsQuery, FolderQuery, PageQuery, PreviewQuery, ScreenQuery, SearchQuery};

const DESCRIPTION: &str = "Loopback only. Every /api call except /api/health needs `Authorization: Bearer TOKEN` (the token printed at start, also in the UI URL fragment; the scheme name is case-insensitive). Every request needs the Host header 127.0.0.1:PORT or localhost:PORT; a foreign Origin gets 403. Writes with a body must be application/json. Every refusal is an ApiError `{error, message}` whose `error` is a stable kind: invalid_path, invalid_query, invalid_header, invalid_json, invalid_body, invalid, unauthorized, forbidden_host, forbidden_origin, not_found, no_frame_yet (404: a tab's live view has no frame yet; ask again), method_not_allowed, conflict, secret_store_unavailable (409: the OS secret store cannot be reached; keep the key with storage `process`), payload_too_large, unsupported_media_type, internal. Reasoning never appears in any answer or event.";

/// Statuses every operation may answer with an `ApiError`, and what they mean.
const ERRORS: [(&str, &str); 9] = [
    (
        "400",
        "the path, query, a header or the body breaks this document's rules",
    ),
    ("401", "missing or wrong token"),
    ("403", "foreign Host or Origin"),
    ("404", "no such path, or what it names does not exist"),
    ("405", "this path does not take that method"),
    ("409", "conflicts with the current state"),
    ("413", "the body is larger than this API accepts"),
    ("415", "the body is not application/json"),
    ("500", "the request failed inside Wisp"),
];

/// The document, as JSON text.
pub(crate) fn document() -> String {
    serde_json::to_string(&build()).unwrap_or_default()
}

fn generator(contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.contract = contract;
        })
        .into_generator()
}

/// Request bodies and queries are described as the server reads them, answers as it writes
/// them (an `Option` field is then required but nullable, a skipped one optional).
struct Schemas {
    reads: SchemaGenerator,
    writes: SchemaGenerator,
}

impl Schemas {
    fn body<T: JsonSchema>(&mut self) -> Value {
        json!({
            "required": true,
            "content": {"application/json": {"schema": self.reads.subschema_for::<T>()}}
        })
    }

    fn answer<T: JsonSchema>(&mut self, status: &str, what: &str) -> (String, Value) {
        (
            status.to_owned(),
            json!({
                "description": what,
                "content": {"application/json": {"schema": self.writes.subschema_for::<T>()}}
            }),
        )
    }

    /// A query type's fields as query parameters.
    fn query<T: JsonSchema>(&mut self) -> Vec<Value> {
        let root = self.reads.root_schema_for::<T>();
        let required: Vec<&str> = root
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = root.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        properties
            .iter()
            .map(|(name, schema)| {
                let mut schema = schema.clone();
                let description = schema
                    .as_object_mut()
                    .and_then(|o| o.remove("description"))
                    .unwrap_or(Value::Null);
                // An absent parameter is how a query says "none": there is no null in a URL.
                if let Some(types) = schema.get_mut("type").and_then(Value::as_array_mut) {
                    types.retain(|t| t != "null");
                    if types.len() == 1 {
                        schema["type"] = types[0].clone();
                    }
                }
                json!({
                    "name": name,
                    "in": "query",
                    "required": required.contains(&name.as_str()),
                    "description": description,
                    "schema": schema,
                })
            })
            .collect()
    }
}

fn id_param(pattern: &str, what: &str) -> Value {
    json!({
        "name": "id",
        "in": "path",
        "required": true,
        "description": what,
        "schema": {"type": "string", "pattern": pattern},
    })
}

fn link(operation: &str, id: &str) -> Value {
    json!({"operationId": operation, "parameters": {"id": id}})
}

/// Links from an answer carrying a session's ID to every operation on that session.
fn session_links(id: &str) -> Value {
    json!({
        "GetSession": link("getSession", id),
        "RenameSession": link("renameSession", id),
        "DeleteSession": link("deleteSession", id),
        "PreviewFile": link("previewFile", id),
        "ViewFolder": link("viewFolder", id),
        "ExportSession": link("exportSession", id),
        "ListRuns": link("listRuns", id),
        "StartRun": link("startRun", id),
        "FollowEvents": link("followEvents", id),
        "SessionTools": link("sessionTools", id),
        "ListTabs": link("listTabs", id),
    })
}

struct Op {
    id: &'static str,
    summary: &'static str,
    params: Vec<Value>,
    body: Option<Value>,
    ok: (String, Value),
    public: bool,
}

impl Op {
    fn new(id: &'static str, summary: &'static str, ok: (String, Value)) -> Self {
        Self {
            id,
            summary,
            params: Vec::new(),
            body: None,
            ok,
            public: false,
        }
    }

    fn params(mut self, params: Vec<Value>) -> Self {
        self.params.extend(params);
        self
    }

    fn body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    fn links(mut self, links: Value) -> Self {
        self.ok.1["links"] = links;
        self
    }

    fn into_json(self) -> Value {
        let mut responses = Map::new();
        responses.insert(self.ok.0, self.ok.1);
        for (status, what) in ERRORS {
            responses.insert(
                status.to_owned(),
                json!({
                    "description": what,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
                }),
            );
        }
        let mut op = json!({
            "operationId": self.id,
            "summary": self.summary,
            "responses": responses,
        });
        if !self.params.is_empty() {
            op["parameters"] = Value::Array(self.params);
        }
        if let Some(body) = self.body {
            op["requestBody"] = body;
        }
        if self.public {
            op["security"] = json!([]);
        }
        op
    }
}

fn no_content(status: &str, what: &str) -> (String, Value) {
    (status.to_owned(), json!({"description": what}))
}

fn build() -> Value {
    build_with(&mut Schemas {
        reads: generator(Contract::Deserialize),
        writes: generator(Contract::Serialize),
    })
}

/// The names of the types described as read and as written.
#[cfg(test)]
pub(crate) fn definition_names() -> (Vec<String>, Vec<String>) {
    let mut s = Schemas {
        reads: generator(Contract::Deserialize),
        writes: generator(Contract::Serialize),
    };
    let _ = build_paths(&mut s);
    let names = |g: &SchemaGenerator| g.definitions().keys().cloned().collect();
    (names(&s.reads), names(&s.writes))
}

fn build_with(s: &mut Schemas) -> Value {
    let paths = build_paths(s);
    let mut schemas = s.writes.take_definitions(true);
    for (name, schema) in s.reads.take_definitions(true) {
        // The two sets are disjoint (a unit test holds them so).
        schemas.entry(name).or_insert(schema);
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Wisp local API", "version": env!("CARGO_PKG_VERSION"), "description": DESCRIPTION},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": schemas,
        },
        "security": [{"bearer": []}],
        "paths": paths,
    })
}

fn build_paths(s: &mut Schemas) -> Value {
    let session = || id_param(p::SESSION_ID, "a session ID");
    let run = || id_param(p::RUN_ID, "a run ID");
    let approval = || id_param(p::APPROVAL_ID, "an approval ID");

    let mut health = Op::new(
        "health",
        "Host status and mode (no token needed)",
        s.answer::<p::Health>("200", "OK"),
    );
    health.public = true;
    let openapi = Op::new(
        "openapi",
        "This document",
        (
            "200".into(),
            json!({"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}),
        ),
    );
    let list_projects = Op::new(
        "listProjects",
        "Authorized projects",
        s.answer::<Vec<p::Project>>("200", "OK"),
    );
    let create_project = Op::new(
        "createProject",
        "Authorize a folder by its absolute path (404 when there is no such folder)",
        s.answer::<p::Project>("201", "authorized"),
    )
    .body(s.body::<p::CreateProject>())
    .links(json!({
        "CreateSessionInProject": {
            "operationId": "createSession",
            "requestBody": {"projectId": "$response.body#/id"},
        },
        "RevokeProject": link("revokeProject", "$response.body#/id"),
    }));
    let revoke_project = Op::new(
        "revokeProject",
        "Revoke a project's authorization; stored, so it holds after a restart. Its sessions keep their history and lose the file tools from their next run; a run in flight keeps its tool list but every file call of it is refused from now on, and its file approval waiting for the person becomes void. Nothing in the folder is touched. 404 when no authorized project has this ID; authorizing the same folder again (POST /api/projects) gives its sessions their folder back",
        no_content("204", "revoked"),
    )
    .params(vec![id_param(p::PROJECT_ID, "a project ID")]);
    let list_sessions = Op::new(
        "listSessions",
        "Sessions: the pinned ones first (newest pin first), then the others newest first",
        s.answer::<Vec<p::Session>>("200", "OK"),
    )
    .links(session_links("$response.body#/0/id"));
    let search_sessions = Op::new(
        "searchSessions",
        "The sessions whose title, messages or answers hold `q` (case folded; in any script, Chinese too), one hit per session by its newest match (a message or answer before the title), newest first, at most 50 with `truncated` saying there were more; each hit has a one-line snippet around the match. Reasoning, tool arguments and results are not searched",
        s.answer::<p::SearchResults>("200", "OK"),
    )
    .params(s.query::<SearchQuery>());
    let create_session = Op::new(
        "createSession",
        "Start a session; with projectId it inherits the project's root and gets the file tools (409 when projectId names no authorized project: never authorized, or revoked)",
        s.answer::<p::Session>("201", "created"),
    )
    .body(s.body::<p::CreateSession>())
    .links(session_links("$response.body#/id"));
    let get_session = Op::new(
        "getSession",
        "One session",
        s.answer::<p::Session>("200", "OK"),
    )
    .params(vec![session()]);
    let rename_session = Op::new(
        "renameSession",
        "Rename a session, give it a project folder it lacks, or pin or unpin it; 404 when no session has this ID, 409 when projectId names no authorized project (never authorized, or revoked) or the session already has a folder",
        s.answer::<p::Session>("200", "renamed"),
    )
    .params(vec![session()])
    .body(s.body::<p::UpdateSession>());
    let delete_session = Op::new(
        "deleteSession",
        "Delete a session with its runs and events (409 while a run is in progress); project files are untouched",
        no_content("204", "deleted"),
    )
    .params(vec![session()]);
    let preview = Op::new(
        "previewFile",
        "The text of a file inside the session's authorized folder, with the same sandbox and size cap as files_read; binary files and paths leading outside are refused (400), a missing file is 404, a session without an authorized folder (none, or revoked) 409; `sha256` is the digest of the whole file's bytes as read (null when partial), which an approval card compares with the digest its change is bound to",
        s.answer::<p::Preview>("200", "OK"),
    )
    .params(vec![session()])
    .params(s.query::<PreviewQuery>());
    let folder = Op::new(
        "viewFolder",
        "One folder inside the session's authorized folder for a workspace tab (its root without `path`), with the same sandbox and entry cap as files_list; links are listed, never followed; paths leading outside or naming a file are refused (400), a missing folder is 404, a session without an authorized folder (none, or revoked) 409",
        s.answer::<p::FolderView>("200", "OK"),
    )
    .params(vec![session()])
    .params(s.query::<FolderQuery>());
    let export_session = Op::new(
        "exportSession",
        "The session as Markdown, to keep: each message, the steps with their text and tool calls (arguments and results verbatim), the answers. Never reasoning, nor the content of a file that looks like credentials (even one the person let the model read); the newest runs up to 32 MiB, saying when earlier ones were left out. Sent as an attachment named after the session's ID",
        (
            "200".into(),
            json!({
                "description": "the session (Cache-Control: no-store)",
                "content": {"text/markdown": {"schema": {"type": "string"}}},
            }),
        ),
    )
    .params(vec![session()]);
    let list_runs = Op::new(
        "listRuns",
        "A page of the session's runs, newest first",
        s.answer::<p::RunPage>("200", "OK"),
    )
    .params(vec![session()])
    .params(s.query::<PageQuery>());
    let start_run = Op::new(
        "startRun",
        "Start a run with a user message (409 while the session has one in progress)",
        s.answer::<p::RunStarted>("202", "started"),
    )
    .params(vec![session()])
    .body(s.body::<p::StartRun>())
    .links(json!({
        "GetRun": link("getRun", "$response.body#/runId"),
        "CancelRun": link("cancelRun", "$response.body#/runId"),
    }));
    let host_events = Op::new(
        "followHostEvents",
        "Server-sent events of the Host itself: one SSE event named `sessions` at connect, then one after every change of the session list (a session created, renamed or deleted, a run started or ended, an approval shown or answered; changes close together may come as one, carrying the newest state)",
        ("200".into(), host_sse_answer()),
    );
    let events = Op::new(
        "followEvents",
        "Server-sent events: the stored events after `after` (or Last-Event-ID), then live ones. A stored event has no SSE event name and its SSE id is its seq; live subscribers also get SSE events named `delta` (not stored, no id of their own), `tool_output` (a running tool call's steps and its program's output lines, capped per call; not stored), and about preview tabs `tabs`, `dialog` and `open_ticket` (an approved open_webpage to claim; tickets still waiting for their claim, and dialogs still waiting for the person's answer, are announced again when a stream connects)",
        ("200".into(), sse_answer()),
    )
    .params(vec![session()])
    .params(s.query::<EventsQuery>())
    .params(vec![json!({
        "name": "Last-Event-ID",
        "in": "header",
        "required": false,
        "description": "what an EventSource sends when it reconnects: the seq of the last event it got; `after` wins when both are given",
        "schema": {"type": "integer", "minimum": 0, "maximum": limits::MAX_SEQ},
    })]);
    let tools = Op::new(
        "sessionTools",
        "The tool_introspect array a new run of this session would get",
        s.answer::<Vec<p::ToolInfo>>("200", "OK"),
    )
    .params(vec![session()]);
    let get_run = Op::new(
        "getRun",
        "A run with its steps, tool calls and approvals",
        s.answer::<p::Run>("200", "OK"),
    )
    .params(vec![run()])
    .links(json!({
        "GetRunSession": link("getSession", "$response.body#/sessionId"),
        "CancelRun": link("cancelRun", "$response.body#/id"),
        "UndoPlan": link("undoPlan", "$response.body#/id"),
    }));
    let cancel_run = Op::new(
        "cancelRun",
        "Cancel a run in progress (it ends as cancelled; 409 when it is not in progress)",
        no_content("202", "cancel requested"),
    )
    .params(vec![run()]);
    let undo_plan = Op::new(
        "undoPlan",
        "What undoing the run's recorded file changes (or one call's, with callId) would do now, newest first: each item, whether it can be undone and why not; confirm it with undoRun quoting its digest",
        s.answer::<p::UndoPlan>("200", "OK"),
    )
    .params(vec![run()])
    .params(s.query::<crate::UndoQuery>());
    let undo_run = Op::new(
        "undoRun",
        "Undo what the plan with this digest showed: each item checked again, skipped and named where it changed since, never overwritten; what a call created goes to the trash. 409 when the plan is no longer that digest, nothing of it can be undone, a run is in progress in the session, or another undo is",
        s.answer::<p::UndoResult>("200", "what was undone and what not"),
    )
    .params(vec![run()])
    .body(s.body::<p::UndoRequest>());
    let decide = Op::new(
        "decide",
        "Approve or reject a pending approval, quoting its digest. 409 when it is not pending (used, void after cancel or restart), the digest differs, or sessionId names another session",
        no_content("204", "decided"),
    )
    .params(vec![approval()])
    .body(s.body::<p::Decide>());

    let tab = || id_param(p::TAB_ID, "a tab ID");
    let tab_links = |id: &str| {
        json!({
            "ActivateTab": link("activateTab", id),
            "CloseTab": link("closeTab", id),
            "MoveTab": link("moveTab", id),
            "NavigateTab": link("navigateTab", id),
            "TabScreen": link("tabScreen", id),
            "TabFront": link("tabFront", id),
        })
    };
    let list_tabs = Op::new(
        "listTabs",
        "The session's preview tabs in panel order (in memory: none after a restart)",
        s.answer::<Vec<p::PreviewTab>>("200", "OK"),
    )
    .params(vec![session()])
    .links(tab_links("$response.body#/0/tabId"));
    let open_tab = Op::new(
        "openTab",
        "Open a tab as the person: a web page (full http(s) URL without credentials), a text file of the session's folder (400 outside it or binary, 404 missing) or a blank tab; it becomes the active tab. 409 when the session has 50 tabs or the browser cannot start",
        s.answer::<p::PreviewTab>("201", "opened"),
    )
    .params(vec![session()])
    .body(s.body::<p::OpenTab>())
    .links(tab_links("$response.body#/tabId"));
    let activate_tab = Op::new(
        "activateTab",
        "Select a tab; the session's tabs after",
        s.answer::<Vec<p::PreviewTab>>("200", "OK"),
    )
    .params(vec![tab()]);
    let move_tab = Op::new(
        "moveTab",
        "Move a tab within its session's order as the person (a drag in the tab strip, or the keyboard): index 0 is first, an index past the last place moves it to the end. The active tab does not change, and list_preview_tabs follows the new order; the session's tabs after (a `tabs` event tells the session's other streams)",
        s.answer::<Vec<p::PreviewTab>>("200", "OK"),
    )
    .params(vec![tab()])
    .body(s.body::<p::MoveTab>());
    let navigate_tab = Op::new(
        "navigateTab",
        "Take a tab elsewhere in place as the person: a web tab loads another address (a blank tab becomes a web tab showing it), a folder tab shows another folder of the session's project, a page of Wisp's browser goes back, forward or loads again, and a file or folder tab is read again on reload. The tab keeps its ID and place; a model's list taken before a new folder or address no longer names it. The session's tabs after. 409 when the tab is being asked about, cannot do this (a folder to a file tab, an address to a file or folder tab, back to a framed page or a tab with no page), or the browser refused or did not answer",
        s.answer::<Vec<p::PreviewTab>>("200", "OK"),
    )
    .params(vec![tab()])
    .body(s.body::<p::NavigateTab>());
    let close_tab = Op::new(
        "closeTab",
        "Close a tab as the person. A page of Wisp's browser closes with its beforeunload (a `dialog` event; the `tabs` event and the list say how it ended): status closing",
        s.answer::<p::TabClosed>("200", "closed or closing"),
    )
    .params(vec![tab()]);
    let tab_screen = Op::new(
        "tabScreen",
        "The live view of a web tab that is a page of Wisp's browser: its latest frame as a JPEG (at most 1024x768, at most two new frames a second), never cached. Asking keeps the tab's screencast running; it stops when nobody asked for a while. With `width` and `height` (the panel's size in CSS pixels), a page of a headless browser is first laid out for that size, so the frame shows it at one frame pixel per CSS pixel; a page in a window the person sees keeps the window's size, and one of the two alone changes nothing. 404 `not_found` for a tab that is no such page (a file, new or web-only tab) or is closed, 404 `no_frame_yet` while its page has not been painted yet (ask again)",
        (
            "200".into(),
            json!({
                "description": "the latest frame (Cache-Control: no-store)",
                "content": {"image/jpeg": {"schema": {"type": "string", "contentMediaType": "image/jpeg"}}},
            }),
        ),
    )
    .params(vec![tab()])
    .params(s.query::<ScreenQuery>());
    let tab_front = Op::new(
        "tabFront",
        "Bring a page of Wisp's browser to the front of its real window, where the person browses and logs in (the desktop's window manager decides whether the window itself comes up). 409 for a tab that is no such page (a file, new or web-only tab)",
        s.answer::<p::TabFront>("200", "front"),
    )
    .params(vec![tab()]);
    let answer_dialog = Op::new(
        "answerDialog",
        "The person's answer to a `dialog` event (404 when it is no longer open)",
        no_content("204", "answered"),
    )
    .params(vec![id_param(p::DIALOG_ID, "a dialog ID")])
    .body(s.body::<p::AnswerDialog>());

    let ticket = || {
        id_param(
            p::TICKET_ID,
            "an open ticket ID (from an `open_ticket` event)",
        )
    };
    let claim_ticket = Op::new(
        "claimTicket",
        "Claim an `open_ticket` as the UI of sessionId: the approved URL is shown in the session's web tab (reused, or opened) and that tab becomes active. Once only: 409 when already claimed or void, or when sessionId is not the ticket's session (the ticket is then void and nothing opens); 404 when it was used, expired, cancelled or is from before a restart",
        s.answer::<p::TicketClaimed>("200", "shown in this tab"),
    )
    .params(vec![ticket()])
    .body(s.body::<p::ClaimTicket>())
    .links(json!({"ActivateTab": link("activateTab", "$response.body#/tabId")}));
    let ack_ticket = Op::new(
        "ackTicket",
        "Acknowledge a claimed ticket once its tab is shown: the open_webpage call's result becomes open_request_accepted (which never means the page loaded). 409 before the claim answered or when already acknowledged; 404 when it was used, expired or cancelled",
        s.answer::<p::TicketAcked>("200", "accepted"),
    )
    .params(vec![ticket()]);

    let settings_links = || {
        json!({
            "TestConnection": {"operationId": "testConnection"},
            "GetSettings": {"operationId": "getSettings"},
        })
    };
    let get_settings = Op::new(
        "getSettings",
        "The model settings in effect: provider, base URL, model, thinking, whether a key is set (never the key), prices, and where each value comes from (environment variables and --simulate win over stored settings)",
        s.answer::<p::Settings>("200", "OK"),
    )
    .links(settings_links());
    let update_settings = Op::new(
        "updateSettings",
        "Store the model settings; they apply from the next run, without a restart, and the connection is checked again",
        s.answer::<p::Settings>("200", "stored; the settings now in effect"),
    )
    .body(s.body::<p::UpdateSettings>())
    .links(settings_links());
    let get_undo_settings = Op::new(
        "getUndoSettings",
        "Settings → Undo in effect: days a change stays undoable, and what is kept of the files changes replace (per file and per session)",
        s.answer::<p::UndoSettings>("200", "OK"),
    );
    let update_undo_settings = Op::new(
        "updateUndoSettings",
        "Store Settings → Undo; they apply to the next change, and changes past the kept time are forgotten at once (they can no longer be undone)",
        s.answer::<p::UndoSettings>("200", "stored; the settings now in effect"),
    )
    .body(s.body::<p::UpdateUndoSettings>());
    let get_context_settings = Op::new(
        "getContextSettings",
        "Settings → Model on long sessions: context windows set per model, the window Wisp takes for the model in Settings now and where it comes from, and a session's spending warning",
        s.answer::<p::ContextSettings>("200", "OK"),
    );
    let update_context_settings = Op::new(
        "updateContextSettings",
        "Store context windows per model and the spending warning; every session's next request follows them",
        s.answer::<p::ContextSettings>("200", "stored; the settings now in effect"),
    )
    .body(s.body::<p::UpdateContextSettings>());
    let set_api_key = Op::new(
        "setApiKey",
        "Keep the API key in the OS secret store or for this Host process only; it is never returned. 409 secret_store_unavailable when the OS store cannot be reached",
        s.answer::<p::Settings>("200", "kept; the settings now in effect"),
    )
    .body(s.body::<p::SetApiKey>())
    .links(settings_links());
    let delete_api_key = Op::new(
        "deleteApiKey",
        "Remove the stored API key (from the OS secret store and this process)",
        s.answer::<p::Settings>("200", "removed; the settings now in effect"),
    )
    .links(settings_links());
    let test_connection = Op::new(
        "testConnection",
        "Ask the endpoint in effect for its models (GET /models) and say, as a stable kind with parameters, what stops it: unreachable, tls, key_refused, no_balance, model_not_offered, missing_key, invalid_config",
        s.answer::<p::ConnectionTest>("200", "the outcome (ok or a problem)"),
    );

    let get_skills = Op::new(
        "getSkills",
        "Settings → Skills: the skills folders, the skills a run is told of, the folders not used and why, and whether skill scripts may be offered (skills_run_script; off unless turned on, every run still approved)",
        s.answer::<p::SkillsView>("200", "OK"),
    );
    let update_skills = Op::new(
        "updateSkills",
        "Turn the managed skill-script mode on or off for runs that start from now on; stored",
        s.answer::<p::SkillsView>("200", "stored; Settings → Skills now"),
    )
    .body(s.body::<p::UpdateSkills>());
    let trust_skill = Op::new(
        "trustSkill",
        "Trust a project's own skill as it was shown (digest), so runs in that project use it, or take the trust back; 409 conflict when its contents changed since, 404 when the project or skill is not there",
        s.answer::<p::SkillsView>("200", "stored; Settings → Skills now"),
    )
    .body(s.body::<p::TrustSkill>());
    let enable_skill = Op::new(
        "enableSkill",
        "Turn one of the person's skills off (listed, but in no run's catalogue, so neither read nor run) or on again, for runs that start from now on; stored. 404 when the person has no skill of that name (a project's skill is used only while trusted)",
        s.answer::<p::SkillsView>("200", "stored; Settings → Skills now"),
    )
    .body(s.body::<p::EnableSkill>());
    let import_skills = Op::new(
        "importSkills",
        "Copy skills of Claude's personal folder (~/.claude/skills) into Wisp's own skills folder, each as shown (digest); 409 conflict says which were not imported and why",
        s.answer::<p::SkillsView>("200", "imported; Settings → Skills now"),
    )
    .body(s.body::<p::ImportSkills>());

    let server = || id_param(p::MCP_SERVER_ID, "an MCP server ID");
    let list_mcp = Op::new(
        "listMcpServers",
        "The configured local MCP servers: command, arguments, working directory, variable names with their storage (never values), status, error and tools",
        s.answer::<Vec<p::McpServer>>("200", "OK"),
    );
    let add_mcp = Op::new(
        "addMcpServer",
        "Add a local MCP server; it arrives disabled. Variable values go to the OS secret store (bound to command, arguments and working directory) or this Host process only; they are never returned. 409 secret_store_unavailable when the OS store cannot be reached: choose storage `session`; 409 at the limit of 16 servers",
        s.answer::<p::McpServer>("201", "added, disabled"),
    )
    .body(s.body::<p::McpServerDraft>());
    let edit_mcp = Op::new(
        "editMcpServer",
        "Replace a server's configuration; it is stopped and disabled. `env` given replaces all variables (empty clears them); left out, stored values stay only while command, arguments and working directory are unchanged",
        s.answer::<p::McpServer>("200", "stored, disabled"),
    )
    .params(vec![server()])
    .body(s.body::<p::McpServerDraft>());
    let delete_mcp = Op::new(
        "deleteMcpServer",
        "Stop and delete a server, with its stored secrets",
        no_content("204", "deleted"),
    )
    .params(vec![server()]);
    let activate_mcp = Op::new(
        "activateMcpServer",
        "Trust and activate: start the program (with the person's rights; its working directory is not a sandbox), initialize, discover its tools. Answers when discovery finished or failed (status `active` with tools, or `failed` with the error); the tools count from the next user message",
        s.answer::<p::McpServer>("200", "the server after the attempt"),
    )
    .params(vec![server()]);
    let disable_mcp = Op::new(
        "disableMcpServer",
        "Stop a server: its tools are withdrawn, approvals waiting on it become void and runs using it are cancelled",
        s.answer::<p::McpServer>("200", "disabled"),
    )
    .params(vec![server()]);
    let refresh_mcp = Op::new(
        "refreshMcpServer",
        "Fetch an active server's tool list again; a changed list voids approvals bound to the old one. 409 when it is not active",
        s.answer::<p::McpServer>("200", "the server with its current tools"),
    )
    .params(vec![server()]);
    let import_list = Op::new(
        "listMcpImports",
        "Servers found in Claude Desktop's, Cursor's and the default project's VS Code MCP config (variable names only; remote servers listed as unsupported)",
        s.answer::<p::McpImportList>("200", "OK"),
    );
    let import = Op::new(
        "importMcpServers",
        "Add proposals from GET /api/mcp/import, disabled; their variables' values go where envStorage says",
        s.answer::<Vec<p::McpServer>>("200", "the added servers"),
    )
    .body(s.body::<p::McpImport>());

    let mut paths = json!({
        "/api/mcp/servers": {"get": list_mcp.into_json(), "post": add_mcp.into_json()},
        "/api/mcp/servers/{id}": {"put": edit_mcp.into_json(), "delete": delete_mcp.into_json()},
        "/api/mcp/servers/{id}/activate": {"post": activate_mcp.into_json()},
        "/api/mcp/servers/{id}/disable": {"post": disable_mcp.into_json()},
        "/api/mcp/servers/{id}/refresh": {"post": refresh_mcp.into_json()},
        "/api/mcp/import": {"get": import_list.into_json(), "post": import.into_json()},
        "/api/settings": {"get": get_settings.into_json(), "put": update_settings.into_json()},
        "/api/settings/api-key": {"put": set_api_key.into_json(), "delete": delete_api_key.into_json()},
        "/api/settings/test": {"post": test_connection.into_json()},
        "/api/skills": {"get": get_skills.into_json(), "put": update_skills.into_json()},
        "/api/skills/trust": {"put": trust_skill.into_json()},
        "/api/skills/enabled": {"put": enable_skill.into_json()},
        "/api/skills/import": {"post": import_skills.into_json()},
        "/api/health": {"get": health.into_json()},
        "/api/openapi.json": {"get": openapi.into_json()},
        "/api/projects": {"get": list_projects.into_json(), "post": create_project.into_json()},
        "/api/projects/{id}": {"delete": revoke_project.into_json()},
        "/api/events": {"get": host_events.into_json()},
        "/api/sessions": {"get": list_sessions.into_json(), "post": create_session.into_json()},
        "/api/search": {"get": search_sessions.into_json()},
        "/api/sessions/{id}": {
            "get": get_session.into_json(),
            "patch": rename_session.into_json(),
            "delete": delete_session.into_json(),
        },
        "/api/sessions/{id}/preview": {"get": preview.into_json()},
        "/api/sessions/{id}/folder": {"get": folder.into_json()},
        "/api/sessions/{id}/export": {"get": export_session.into_json()},
        "/api/sessions/{id}/runs": {"get": list_runs.into_json(), "post": start_run.into_json()},
        "/api/sessions/{id}/events": {"get": events.into_json()},
        "/api/sessions/{id}/tools": {"get": tools.into_json()},
        "/api/runs/{id}": {"get": get_run.into_json()},
        "/api/runs/{id}/cancel": {"post": cancel_run.into_json()},
        "/api/approvals/{id}": {"post": decide.into_json()},
        "/api/sessions/{id}/tabs": {"get": list_tabs.into_json(), "post": open_tab.into_json()},
        "/api/tabs/{id}/activate": {"post": activate_tab.into_json()},
        "/api/tabs/{id}": {"delete": close_tab.into_json()},
        "/api/tabs/{id}/move": {"post": move_tab.into_json()},
        "/api/tabs/{id}/navigate": {"post": navigate_tab.into_json()},
        "/api/tabs/{id}/screen": {"get": tab_screen.into_json()},
        "/api/tabs/{id}/front": {"post": tab_front.into_json()},
        "/api/dialogs/{id}": {"post": answer_dialog.into_json()},
        "/api/tickets/{id}/claim": {"post": claim_ticket.into_json()},
        "/api/tickets/{id}/ack": {"post": ack_ticket.into_json()},
    });
    // One json! of every path passes serde_json's macro recursion limit.
    if let Some(all) = paths.as_object_mut() {
        all.insert(
            "/api/runs/{id}/undo".into(),
            json!({"get": undo_plan.into_json(), "post": undo_run.into_json()}),
        );
        all.insert(
            "/api/settings/undo".into(),
            json!({"get": get_undo_settings.into_json(), "put": update_undo_settings.into_json()}),
        );
        all.insert(
            "/api/settings/context".into(),
            json!({"get": get_context_settings.into_json(), "put": update_context_settings.into_json()}),
        );
    }
    // The SSE events' data and the error shape are referenced by hand above.
    s.writes.subschema_for::<p::Event>();
    s.writes.subschema_for::<p::Delta>();
    s.writes.subschema_for::<p::ToolOutput>();
    s.writes.subschema_for::<p::Dialog>();
    s.writes.subschema_for::<p::TabsChanged>();
    s.writes.subschema_for::<p::OpenTicket>();
    s.writes.subschema_for::<p::SessionsChanged>();
    s.writes.subschema_for::<p::ApiError>();
    paths
}

/// One event of the Host's own stream, as an SSE parser delivers it.
fn host_sse_answer() -> Value {
    json!({
        "description": "text/event-stream; each event is this",
        "content": {"text/event-stream": {"schema": {
            "type": "object",
            "required": ["event", "data"],
            "properties": {
                "event": {"const": "sessions"},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"$ref": "#/components/schemas/SessionsChanged"},
                },
            },
        }}},
    })
}

/// One event of the stream, as an SSE parser delivers it: `data` is the JSON text of an
/// `Event` (stored, with its seq as `id`) or of a `Delta` (SSE event name `delta`).
fn sse_answer() -> Value {
    let data = |schema: &str| {
        json!({
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": format!("#/components/schemas/{schema}")},
        })
    };
    json!({
        "description": "text/event-stream; each event is one of these",
        "content": {"text/event-stream": {"schema": {"oneOf": [
            {
                "type": "object",
                "required": ["event", "data", "id"],
                "properties": {
                    "event": {"const": "message"},
                    "id": {"type": "string", "pattern": "^[0-9]+$"},
                    "data": data("Event"),
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "delta"},
                    "data": data("Delta"),
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "tool_output"},
                    "data": data("ToolOutput"),
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "dialog"},
                    "data": data("Dialog"),
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "tabs"},
                    "data": data("TabsChanged"),
                },
            },
            {
                "type": "object",
                "required": ["event", "data"],
                "properties": {
                    "event": {"const": "open_ticket"},
                    "data": data("OpenTicket"),
                },
            },
        ]}}},
    })
}
