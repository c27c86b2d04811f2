//! Settings → Model end to end: a key entered over the API reaches the endpoint and
//! nothing else (canary), the provider switches between runs without a restart, each failure
//! has its own actionable problem at start and on "Test connection", other OpenAI-compatible
//! endpoints get only standard fields, and a fuzzed `--simulate` Host cannot be pointed away
//! from its simulator.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use wisp_core::{EnvModel, ModelSetup, SimEndpoint};
use wisp_secrets::{Keyring, SecretError, Secrets};
use wisp_sim::{SimConfig, SimServer};

use crate::e2e::{TOKEN, Wisp};

/// A key no one would type: if it shows up anywhere but the endpoint, it leaked.
const CANARY: &str = "sk-canary-9f2e7c41d0b3a6e58d17";

fn setup(
    w: &Wisp,
    env: EnvModel,
    pinned: bool,
    keyring: Result<Keyring, SecretError>,
) -> ModelSetup {
    ModelSetup {
        simulator: Some(SimEndpoint {
            base_url: w.sim.base_url(),
            api_key: w.sim.api_key().to_owned(),
        }),
        pinned_simulation: pinned,
        env,
        secrets: Arc::new(Secrets::new(keyring)),
    }
}

/// A Host whose model is under Settings, with keyring-core's mock store as the OS store.
async fn configured(env: EnvModel) -> Wisp {
    let w = Wisp::start().await;
    w.host
        .configure_model(setup(&w, env, false, Ok(Keyring::mock())))
        .unwrap();
    w
}

fn deepseek_at(base: &str, model: &str) -> Value {
    json!({"provider": "deepseek", "baseUrl": base, "model": model, "thinking": "enabled"})
}

/// Polls `/api/health` until its problem has `kind` (`None`: no problem).
async fn health_until(w: &Wisp, kind: Option<&str>) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let h = w.ok("GET", "/api/health", None).await;
        if h["problem"]["kind"].as_str() == kind {
            return h;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "health never reached {kind:?}: {h}"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// A base URL where nothing listens.
fn dead_base() -> (String, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    (format!("http://127.0.0.1:{port}"), port)
}

/// Dead address, refused key, no balance, unknown model: each its own kind, with the
/// parameters its wording names, both from the check at start and from "Test connection"; no
/// English sentence of the Host's goes to the UI.
#[tokio::test]
async fn each_failure_has_its_own_actionable_problem_at_start_and_on_test() {
    let (dead, dead_port) = dead_base();
    let broke = SimServer::start(SimConfig {
        balance_available: false,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    // (environment, kind, parameters, words a parameter holds)
    type Case<'a> = (
        EnvModel,
        &'a str,
        Vec<(&'a str, String)>,
        Vec<(&'a str, &'a str)>,
    );
    let cases: Vec<Case> = vec![
        (
            EnvModel {
                base_url: Some(dead.clone()),
                model: None,
                api_key: Some("sk-any".into()),
            },
            "connect",
            vec![
                ("host", "127.0.0.1".into()),
                ("port", dead_port.to_string()),
                ("source", "DEEPSEEK_BASE_URL".into()),
            ],
            vec![],
        ),
        (
            EnvModel {
                base_url: Some(sim.base_url()),
                model: None,
                api_key: Some("sk-wrong-key".into()),
            },
            "key_refused",
            vec![("source", "DEEPSEEK_API_KEY".into())],
            vec![],
        ),
        (
            EnvModel {
                base_url: Some(broke.base_url()),
                model: None,
                api_key: Some(broke.api_key().into()),
            },
            "no_balance",
            vec![],
            vec![],
        ),
        (
            EnvModel {
                base_url: Some(sim.base_url()),
                model: Some("deepseek-gone".into()),
                api_key: Some(sim.api_key().into()),
            },
            "model_not_offered",
            vec![("model", "deepseek-gone".into())],
            vec![
                ("offered", "deepseek-v4-flash"),
                ("source", "DEEPSEEK_BASE_URL"),
            ],
        ),
    ];
    for (env, kind, params, words) in cases {
        let w = configured(env).await;
        let at_start = health_until(&w, Some(kind)).await;
        let tested = w.ok("POST", "/api/settings/test", None).await;
        assert_eq!(tested["ok"], false, "{tested}");
        for problem in [&at_start["problem"], &tested["problem"]] {
            assert_eq!(problem["kind"], kind, "{problem}");
            for (k, v) in &params {
                assert_eq!(problem["params"][k], v.as_str(), "{kind}: {problem}");
            }
            for (k, word) in &words {
                let value = problem["params"][k].as_str().unwrap_or_default();
                assert!(value.contains(word), "{kind}: {problem}");
            }
            assert!(problem.get("message").is_none(), "{kind}: {problem}");
        }
        assert!(at_start.get("model_problem").is_none(), "{at_start}");
    }
    // And a working configuration has no problem at all.
    let w = configured(EnvModel {
        base_url: Some(sim.base_url()),
        model: None,
        api_key: Some(sim.api_key().into()),
    })
    .await;
    health_until(&w, None).await;
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["ok"], true, "{tested}");
    assert_eq!(
        tested["models"],
        json!(["deepseek-v4-flash", "deepseek-v4-pro"])
    );
}

/// The model in effect is taken by each run at its start: switching applies from the next
/// run, the earlier run keeps what answered it, simulation stays labelled.
#[tokio::test]
async fn the_provider_switches_between_runs_without_a_restart() {
    let w = configured(EnvModel::default()).await;
    w.ok(
        "PUT",
        "/api/settings",
        Some(
            json!({"provider": "simulation", "model": "deepseek-v4-flash", "thinking": "enabled"}),
        ),
    )
    .await;
    let s = w.session().await;
    let first = w.finished(&w.run(&s, "hello").await).await;
    assert_eq!(first["status"], "completed", "{first}");
    assert_eq!(first["mode"], "simulation");
    assert_eq!(
        first["model"],
        json!({"provider": "simulation", "name": "deepseek-v4-flash"})
    );
    assert!(
        first["usage"]["estimatedCost"].is_null(),
        "the simulator costs nothing"
    );

    // Live: DeepSeek's API, played by the simulator at its address with a key kept for this
    // session only.
    w.ok(
        "PUT",
        "/api/settings/api-key",
        Some(json!({"value": w.sim.api_key(), "storage": "process"})),
    )
    .await;
    let settings = w
        .ok(
            "PUT",
            "/api/settings",
            Some(deepseek_at(&w.sim.base_url(), "deepseek-v4-pro")),
        )
        .await;
    assert_eq!(settings["provider"], "deepseek");
    assert_eq!(settings["sources"]["baseUrl"], "stored");
    assert_eq!(
        settings["apiKey"],
        json!({"set": true, "storage": "process"})
    );
    let health = health_until(&w, None).await;
    assert_eq!(health["mode"], "live");
    assert_eq!(
        health["model"],
        json!({"provider": "deepseek", "name": "deepseek-v4-pro"})
    );
    let second = w.finished(&w.run(&s, "hello again").await).await;
    assert_eq!(second["status"], "completed", "{second}");
    assert_eq!(second["mode"], "live");
    assert_eq!(
        second["model"],
        json!({"provider": "deepseek", "name": "deepseek-v4-pro"})
    );
    let sent = w.sim.chat_requests();
    assert_eq!(sent.last().unwrap().body["model"], "deepseek-v4-pro");
    assert_eq!(sent.last().unwrap().body["thinking"]["type"], "enabled");

    // Cost: the default table's deepseek-v4-pro prices applied to the run's tokens.
    let u = &second["usage"];
    let tokens = |k: &str| u[k].as_u64().unwrap() as f64;
    assert!(
        tokens("promptTokens") > 0.0 && tokens("completionTokens") > 0.0,
        "{u}"
    );
    let want = (tokens("cacheHitTokens") * 0.003625
        + tokens("cacheMissTokens") * 0.435
        + tokens("completionTokens") * 0.87)
        / 1e6;
    let got = u["estimatedCost"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    // The session totals add both runs up.
    let session = w.ok("GET", &format!("/api/sessions/{s}"), None).await;
    let total = |k: &str| session["usage"][k].as_u64().unwrap();
    assert_eq!(
        total("completionTokens"),
        first["usage"]["completionTokens"].as_u64().unwrap()
            + second["usage"]["completionTokens"].as_u64().unwrap()
    );
    assert!((session["usage"]["estimatedCost"].as_f64().unwrap() - got).abs() < 1e-12);
    // The simulated run cost nothing: it is not a run without an estimate.
    assert_eq!(session["usage"]["runsWithoutEstimate"], 0, "{session}");
    // The first run still says what answered it.
    let again = w.get_run(first["id"].as_str().unwrap()).await;
    assert_eq!(again["model"]["provider"], "simulation");

    // A model without a price gets no estimate rather than a wrong one.
    let mut unpriced = deepseek_at(&w.sim.base_url(), "deepseek-v4-flash");
    unpriced["prices"] =
        json!({"currency": "USD", "source": "test", "asOf": "2026-12-01", "models": {}});
    w.ok("PUT", "/api/settings", Some(unpriced)).await;
    let third = w.finished(&w.run(&s, "once more").await).await;
    assert_eq!(third["status"], "completed");
    assert!(third["usage"]["estimatedCost"].is_null(), "{third}");
    assert!(
        third["usage"].get("runsWithoutEstimate").is_none(),
        "{third}"
    );
    // The session's total is now a lower bound, and says so.
    let session = w.ok("GET", &format!("/api/sessions/{s}"), None).await;
    assert_eq!(session["usage"]["runsWithoutEstimate"], 1, "{session}");
    assert!((session["usage"]["estimatedCost"].as_f64().unwrap() - got).abs() < 1e-12);
    let listed = w.ok("GET", "/api/sessions", None).await;
    let listed = listed
        .as_array()
        .or_else(|| listed["items"].as_array())
        .unwrap()
        .iter()
        .find(|x| x["id"] == s)
        .unwrap()
        .clone();
    assert_eq!(listed["usage"]["runsWithoutEstimate"], 1, "{listed}");
}

/// No OS secret store: the keyring choice is refused with a kind the UI can word, nothing is
/// kept, and the process-only choice works.
#[tokio::test]
async fn without_a_secret_store_the_keyring_is_refused_and_process_only_works() {
    let w = Wisp::start().await;
    w.host
        .configure_model(setup(
            &w,
            EnvModel {
                base_url: Some(w.sim.base_url()),
                model: None,
                api_key: None,
            },
            false,
            Err(SecretError::Unavailable("no session bus".into())),
        ))
        .unwrap();
    let before = w.ok("GET", "/api/settings", None).await;
    assert_eq!(before["keyringProblem"]["kind"], "secret_store_unavailable");
    assert_eq!(before["apiKey"]["set"], false);
    let (status, e) = w
        .call(
            "PUT",
            "/api/settings/api-key",
            Some(json!({"value": CANARY, "storage": "keyring"})),
        )
        .await;
    assert_eq!(status, 409, "{e}");
    assert_eq!(e["error"], "secret_store_unavailable");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("this Wisp session only")
    );
    assert!(!e.to_string().contains(CANARY));
    assert_eq!(
        w.ok("GET", "/api/settings", None).await["apiKey"]["set"],
        false
    );
    let kept = w
        .ok(
            "PUT",
            "/api/settings/api-key",
            Some(json!({"value": w.sim.api_key(), "storage": "process"})),
        )
        .await;
    assert_eq!(kept["apiKey"], json!({"set": true, "storage": "process"}));
    assert_eq!(w.ok("POST", "/api/settings/test", None).await["ok"], true);
    let removed = w.ok("DELETE", "/api/settings/api-key", None).await;
    assert_eq!(removed["apiKey"]["set"], false);
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["problem"]["kind"], "missing_key");
}

/// An OpenAI-compatible endpoint that refuses unknown fields (the simulator's strict mode)
/// works as `openai_compatible` and refuses what the DeepSeek dialect sends.
#[tokio::test]
async fn an_openai_compatible_endpoint_gets_only_standard_fields() {
    let strict = SimServer::start(SimConfig {
        strict_fields: true,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let w = configured(EnvModel::default()).await;
    w.ok(
        "PUT",
        "/api/settings/api-key",
        Some(json!({"value": strict.api_key(), "storage": "keyring"})),
    )
    .await;
    let settings = json!({
        "provider": "openai_compatible",
        "baseUrl": format!("{}/v1", strict.base_url()),
        "model": "deepseek-v4-flash",
        "thinking": "enabled",
        "reasoningEffort": "max",
    });
    w.ok("PUT", "/api/settings", Some(settings)).await;
    let s = w.session().await;
    let run = w.run(&s, "[demo:multi] look").await;
    let r = w.drive(&run, "approve").await;
    assert_eq!(r["status"], "completed", "{r}");
    let sent = strict.chat_requests();
    assert!(sent.len() >= 2, "the tool round trip happened");
    for req in &sent {
        assert!(req.body.get("thinking").is_none(), "{}", req.body);
        assert!(req.body.get("reasoning_effort").is_none(), "{}", req.body);
    }
    // The same endpoint as "deepseek" gets DeepSeek's fields and refuses them.
    w.ok(
        "PUT",
        "/api/settings",
        Some(deepseek_at(
            &format!("{}/v1", strict.base_url()),
            "deepseek-v4-flash",
        )),
    )
    .await;
    let failed = w.finished(&w.run(&s, "hello").await).await;
    assert_eq!(failed["status"], "failed");
    assert!(
        failed["error"]["params"]["detail"]
            .as_str()
            .unwrap()
            .contains("Unrecognized request argument supplied: thinking"),
        "{failed}"
    );
}

/// A local OpenAI-compatible server that needs no key (as Ollama, LM Studio, vLLM and
/// llama.cpp's server) works with no key set: it is asked without one. One that wants a key
/// answers 401, and that says the endpoint wants a key, not that a key was refused.
#[tokio::test]
async fn an_openai_compatible_endpoint_is_asked_without_a_key_when_none_is_set() {
    let keyless = SimServer::start(SimConfig {
        strict_fields: true,
        no_key: true,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let w = configured(EnvModel::default()).await;
    let at = |base: &str| json!({"provider": "openai_compatible", "baseUrl": format!("{base}/v1"), "model": "deepseek-v4-flash", "thinking": "disabled"});
    let settings = w
        .ok("PUT", "/api/settings", Some(at(&keyless.base_url())))
        .await;
    assert_eq!(settings["apiKey"]["set"], false, "{settings}");
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["ok"], true, "{tested}");
    assert_eq!(health_until(&w, None).await["problem"], Value::Null);
    let s = w.session().await;
    let r = w
        .drive(&w.run(&s, "[demo:multi] look").await, "approve")
        .await;
    assert_eq!(r["status"], "completed", "{r}");
    let sent = keyless.requests();
    assert!(
        sent.len() >= 3,
        "models and two chat rounds: {}",
        sent.len()
    );
    assert!(sent.iter().all(|r| !r.sent_key), "a request carried a key");

    // An endpoint that wants a key: the run fails saying so, with the endpoint.
    let keyed = SimServer::start(SimConfig::default()).await.unwrap();
    w.ok("PUT", "/api/settings", Some(at(&keyed.base_url())))
        .await;
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["problem"]["kind"], "key_required", "{tested}");
    let failed = w.finished(&w.run(&s, "hello").await).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["kind"], "key_required", "{failed}");
    let port = keyed.base_url().rsplit(':').next().unwrap().to_owned();
    assert_eq!(failed["error"]["params"]["host"], "127.0.0.1", "{failed}");
    assert_eq!(failed["error"]["params"]["port"], port.as_str(), "{failed}");
    assert_eq!(failed["error"]["params"]["status"], "401", "{failed}");
    assert!(keyed.requests().iter().all(|r| !r.sent_key));

    // DeepSeek always needs one: with none set it is not even asked.
    let before = keyed.requests().len();
    w.ok(
        "PUT",
        "/api/settings",
        Some(deepseek_at(
            &format!("{}/v1", keyed.base_url()),
            "deepseek-v4-flash",
        )),
    )
    .await;
    let failed = w.finished(&w.run(&s, "hello").await).await;
    assert_eq!(failed["error"]["kind"], "missing_key", "{failed}");
    assert_eq!(
        keyed.requests().len(),
        before,
        "DeepSeek was asked without a key"
    );
}

/// `--simulate` pins the provider: settings a fuzzer stores (any base URL, any provider) are
/// kept but never followed, so it can never make the Host contact another address.
#[tokio::test]
async fn a_simulate_host_stays_on_its_simulator_whatever_is_stored() {
    let w = Wisp::start().await;
    w.host
        .configure_model(setup(&w, EnvModel::default(), true, Ok(Keyring::mock())))
        .unwrap();
    let stored = w
        .ok(
            "PUT",
            "/api/settings",
            Some(json!({"provider": "openai_compatible", "baseUrl": "https://wisp-test.invalid", "model": "deepseek-v4-pro", "thinking": "disabled"})),
        )
        .await;
    assert_eq!(stored["provider"], "simulation");
    assert_eq!(stored["sources"]["provider"], "flag");
    assert_eq!(stored["baseUrl"], w.sim.base_url());
    let before = w.sim.requests().len();
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["ok"], true, "{tested}");
    assert!(
        w.sim.requests().len() > before,
        "the check asked the simulator"
    );
    // Bad input is refused and changes nothing.
    for bad in [
        json!({"provider": "deepseek", "baseUrl": "http://example.com", "model": "m", "thinking": "enabled"}),
        json!({"provider": "deepseek", "model": "has space", "thinking": "enabled"}),
        json!({"provider": "deepseek", "model": "m", "thinking": "enabled", "apiKey": "x"}),
    ] {
        let (status, e) = w.call("PUT", "/api/settings", Some(bad)).await;
        assert_eq!(status, 400, "{e}");
    }
    let now = w.ok("GET", "/api/settings", None).await;
    assert_eq!(now["model"], "deepseek-v4-pro");
    assert_eq!(now["thinking"], "disabled");
}

/// The whole path as a person takes it, through the real binary: start live without a key,
/// enter one (keyring-core's mock store stands in for the OS keyring), test the connection
/// against the simulator playing DeepSeek, run — and the key is in no answer, event, log line
/// or database row.
#[tokio::test]
async fn an_entered_key_reaches_the_endpoint_and_nowhere_else() {
    let sim = SimServer::start(SimConfig {
        api_key: CANARY.into(),
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (data, project) = (tmp.path().join("data"), tmp.path().join("project"));
    std::fs::create_dir(&project).unwrap();
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_wisp"));
    for var in ["DEEPSEEK_BASE_URL", "DEEPSEEK_MODEL", "DEEPSEEK_API_KEY"] {
        c.env_remove(var);
    }
    c.args(["serve", "--no-open", "--port", "0", "--data-dir"])
        .arg(&data)
        .arg(&project)
        .env("WISP_TOKEN", TOKEN)
        .env("WISP_SECRET_STORE", "mock")
        .env("WISP_LOG", "debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    let port: u16 = {
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        loop {
            let line = lines.next().expect("no URL printed").unwrap();
            if let Some(url) = line.strip_prefix("Open http://127.0.0.1:") {
                break url.split('/').next().unwrap().parse().unwrap();
            }
        }
    };
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let child = Kill(child);
    let http = reqwest::Client::new();
    let mut seen = String::new();
    let base = format!("http://127.0.0.1:{port}");
    let mut call = async |method: &str, path: &str, body: Option<Value>| -> Value {
        let mut r = http
            .request(method.parse().unwrap(), format!("{base}{path}"))
            .bearer_auth(TOKEN);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        seen.push_str(&text);
        assert!(status < 300, "{method} {path} -> {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };

    let health = call("GET", "/api/health", None).await;
    assert_eq!(health["problem"]["kind"], "missing_key", "{health}");
    call(
        "PUT",
        "/api/settings",
        Some(deepseek_at(&sim.base_url(), "deepseek-v4-flash")),
    )
    .await;
    let kept = call(
        "PUT",
        "/api/settings/api-key",
        Some(json!({"value": CANARY, "storage": "keyring"})),
    )
    .await;
    assert_eq!(kept["apiKey"], json!({"set": true, "storage": "keyring"}));
    let tested = call("POST", "/api/settings/test", None).await;
    assert_eq!(tested["ok"], true, "{tested}");
    let s = call("POST", "/api/sessions", Some(json!({}))).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run = call(
        "POST",
        &format!("/api/sessions/{s}/runs"),
        Some(json!({"text": "[demo:multi] look"})),
    )
    .await["runId"]
        .as_str()
        .unwrap()
        .to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let finished = loop {
        let r = call("GET", &format!("/api/runs/{run}"), None).await;
        if r["status"] == "completed" || r["status"] == "failed" {
            break r;
        }
        assert!(tokio::time::Instant::now() < deadline, "{r}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    assert_eq!(finished["status"], "completed", "{finished}");
    assert_eq!(finished["mode"], "live");
    assert!(finished["usage"]["estimatedCost"].as_f64().unwrap() > 0.0);
    // The key went to the endpoint (it accepts nothing else) on every request.
    assert!(sim.chat_requests().len() >= 2);
    for path in [
        "/api/settings",
        "/api/health",
        "/api/sessions",
        &format!("/api/sessions/{s}"),
        &format!("/api/sessions/{s}/runs"),
    ] {
        call("GET", path, None).await;
    }
    let events = http
        .get(format!("{base}/api/sessions/{s}/events?after=0"))
        .bearer_auth(TOKEN)
        .timeout(Duration::from_millis(800))
        .send()
        .await
        .unwrap();
    let mut body = events.bytes_stream();
    use futures_util::StreamExt;
    while let Some(Ok(chunk)) = body.next().await {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("tool_call_finished"), "the events were read");
    assert!(
        !seen.contains(CANARY),
        "the key leaked into an answer or event"
    );
    drop(child);
    for file in ["wisp.log", "wisp.db", "wisp.db-wal", "settings.json"] {
        let path = data.join(file);
        if let Ok(bytes) = std::fs::read(&path) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(CANARY),
                "the key is in {file}"
            );
        }
    }
    let log = std::fs::read_to_string(data.join("wisp.log")).unwrap();
    assert!(
        log.contains("API key replaced"),
        "the log was written: {log}"
    );
    let store = wisp_store::Store::open(&data.join("wisp.db")).unwrap();
    assert!(store.setting("model").unwrap().is_some());
}

/// A failed run says its kind with what its sentence names, so the UI can word it in the
/// person's language: the address and the variable it came from for a dead base
/// URL, the key's source for a refused key.
#[tokio::test]
async fn a_failed_run_names_its_kind_and_parameters() {
    let (dead, dead_port) = dead_base();
    let sim = SimServer::start(SimConfig::default()).await.unwrap();
    let sim_port = sim.base_url().rsplit(':').next().unwrap().to_owned();
    let cases = [
        (
            EnvModel {
                base_url: Some(dead.clone()),
                model: None,
                api_key: Some("sk-any".into()),
            },
            "connect",
            json!({"host": "127.0.0.1", "port": dead_port.to_string(), "source": "DEEPSEEK_BASE_URL"}),
        ),
        (
            EnvModel {
                base_url: Some(sim.base_url()),
                model: None,
                api_key: Some("sk-wrong-key".into()),
            },
            "key_refused",
            // The service's own words come along, with the key in them redacted.
            json!({"host": "127.0.0.1", "port": sim_port, "source": "DEEPSEEK_API_KEY", "status": "401",
                "detail": "Authentication Fails, Your api key: ****-key is invalid"}),
        ),
    ];
    for (env, kind, params) in cases {
        let w = configured(env).await;
        let s = w.session().await;
        let run = w.finished(&w.run(&s, "hello").await).await;
        assert_eq!(run["status"], "failed", "{run}");
        assert_eq!(run["error"]["kind"], kind, "{run}");
        assert_eq!(run["error"]["params"], params, "{run}");
        // The stored run says the same as the event stream did.
        let again = w
            .ok(
                "GET",
                &format!("/api/runs/{}", run["id"].as_str().unwrap()),
                None,
            )
            .await;
        assert_eq!(again["error"], run["error"]);
    }
}

/// The UI has a wording for every failure kind (ui.test.tsx checks it against this list): the
/// list it words must be exactly the enum the Host documents, so a kind added on either side
/// fails a test until the other follows.
#[tokio::test]
async fn the_ui_knows_every_failure_kind_the_host_documents() {
    let w = Wisp::start().await;
    let api = w.ok("GET", "/api/openapi.json", None).await;
    let schema = &api["components"]["schemas"]["FailureKind"];
    // schemars writes a plain `enum`, or `oneOf` with one `const` per documented variant.
    let documented: Vec<&str> = match schema["oneOf"].as_array() {
        Some(variants) => variants
            .iter()
            .filter_map(|v| v["const"].as_str())
            .collect(),
        None => schema["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect(),
    };
    assert!(documented.len() > 20, "{schema}");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ui/src/features/settings/failureKinds.ts"
    );
    let source = std::fs::read_to_string(path).unwrap();
    let list = source
        .split_once("FAILURE_KINDS = [")
        .and_then(|(_, rest)| rest.split_once("] as const"))
        .map(|(list, _)| list)
        .unwrap();
    let ui: Vec<&str> = list
        .split(',')
        .map(|k| k.trim().trim_matches('"'))
        .filter(|k| !k.is_empty())
        .collect();
    assert_eq!(ui, documented, "{path} differs from the Host's FailureKind");
}

/// A loopback https server with a self-signed certificate (untrusted by the Host): it completes
/// TCP, and the TLS handshake fails on the Host's side. Returns the base URL and port.
async fn untrusted_https() -> (String, u16, tokio::task::JoinHandle<()>) {
    use tokio_rustls::rustls;
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            // The handshake fails when the client refuses the certificate; nothing to serve.
            tokio::spawn(async move {
                let _ = acceptor.accept(socket).await;
            });
        }
    });
    (format!("https://127.0.0.1:{port}"), port, task)
}

/// An https endpoint whose certificate the Host does not trust is a TLS failure with host and
/// port, on "Test connection" and in a run — not "cannot connect".
#[tokio::test]
async fn an_untrusted_certificate_is_a_tls_failure_with_host_and_port() {
    let (base, port, server) = untrusted_https().await;
    let w = configured(EnvModel {
        base_url: Some(base),
        model: None,
        api_key: Some("sk-any".into()),
    })
    .await;
    let tested = w.ok("POST", "/api/settings/test", None).await;
    assert_eq!(tested["ok"], false, "{tested}");
    let problem = &tested["problem"];
    assert_eq!(problem["kind"], "tls", "{problem}");
    assert_eq!(
        problem["params"],
        json!({"host": "127.0.0.1", "port": port.to_string(), "source": "DEEPSEEK_BASE_URL"})
    );

    let s = w.session().await;
    let run = w.finished(&w.run(&s, "hello").await).await;
    assert_eq!(run["status"], "failed", "{run}");
    assert_eq!(run["error"]["kind"], "tls", "{run}");
    assert_eq!(
        run["error"]["params"],
        json!({"host": "127.0.0.1", "port": port.to_string(), "source": "DEEPSEEK_BASE_URL"})
    );
    server.abort();
}

/// MCP-18 through the real binary and the real OS-store client: `wisp serve` (no mock store)
/// talks to a "session bus" that is a socket of this test, which counts the connections made
/// to it and drops each one (the client then finds no secret store). With nothing stored, the
/// start, health, the settings, the MCP server list, and adding and editing servers whose
/// variables are kept for the session never contact it; the first save that keeps a value in
/// the OS store does, and is refused saying the store cannot be reached.
#[tokio::test]
async fn mcp_18_the_os_secret_store_is_contacted_only_by_a_save_that_needs_it() {
    use std::os::unix::net::UnixListener;
    let tmp = tempfile::tempdir().unwrap();
    let (data, project) = (tmp.path().join("data"), tmp.path().join("project"));
    std::fs::create_dir(&project).unwrap();
    let bus = tmp.path().join("bus");
    let listener = UnixListener::bind(&bus).unwrap();
    listener.set_nonblocking(true).unwrap();
    // Every connection made so far: connect() completes into the backlog, so one made before
    // an answer the Host gave is counted here after it.
    let mut connections = 0usize;
    let drain = |connections: &mut usize| {
        while let Ok((socket, _)) = listener.accept() {
            *connections += 1;
            drop(socket);
        }
    };
    let mut c = crate::cli::serve_command(&data, Some(&project), &["--web-only"]);
    for var in [
        "DEEPSEEK_BASE_URL",
        "DEEPSEEK_MODEL",
        "DEEPSEEK_API_KEY",
        "WISP_SECRET_STORE",
    ] {
        c.env_remove(var);
    }
    c.env(
        "DBUS_SESSION_BUS_ADDRESS",
        format!("unix:path={}", bus.display()),
    );
    let served = crate::cli::Served::spawn(c);
    let ok = async |method: &str, path: &str, body: Option<Value>| {
        let (status, r) = served.call(method, path, body).await;
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {r}"
        );
        r
    };
    ok("GET", "/api/health", None).await;
    let settings = ok("GET", "/api/settings", None).await;
    assert_eq!(settings["apiKey"]["set"], false);
    assert!(settings["keyringProblem"].is_null(), "{settings}");
    assert_eq!(ok("GET", "/api/mcp/servers", None).await, json!([]));
    let server =
        |env: Value| json!({"name": "plain", "command": "/usr/bin/true", "args": [], "env": env});
    let added = ok("POST", "/api/mcp/servers", Some(server(json!([])))).await;
    let id = added["id"].as_str().unwrap().to_owned();
    let session = json!([{"name": "TOKEN", "value": "v-session-1", "storage": "session"}]);
    ok(
        "PUT",
        &format!("/api/mcp/servers/{id}"),
        Some(server(session)),
    )
    .await;
    ok("GET", "/api/mcp/servers", None).await;
    ok("DELETE", &format!("/api/mcp/servers/{id}"), None).await;
    // A key kept for this session needs no OS store either.
    let key = json!({"value": "sk-session-only-7f3a9c", "storage": "process"});
    ok("PUT", "/api/settings/api-key", Some(key)).await;
    ok("DELETE", "/api/settings/api-key", None).await;
    drain(&mut connections);
    assert_eq!(
        connections, 0,
        "the OS secret store was contacted with nothing stored"
    );

    // The first save into the OS store contacts it (drained while the save waits on it).
    let save = served.call(
        "PUT",
        "/api/settings/api-key",
        Some(json!({"value": "sk-keyring-7f3a9c", "storage": "keyring"})),
    );
    let mut save = std::pin::pin!(save);
    let (status, e) = loop {
        tokio::select! {
            answer = &mut save => break answer,
            () = tokio::time::sleep(Duration::from_millis(20)) => drain(&mut connections),
        }
    };
    drain(&mut connections);
    assert_eq!(status, 409, "{e}");
    assert_eq!(e["error"], "secret_store_unavailable", "{e}");
    assert!(
        connections >= 1,
        "the save never contacted the OS secret store"
    );
    let settings = ok("GET", "/api/settings", None).await;
    assert_eq!(
        settings["keyringProblem"]["kind"], "secret_store_unavailable",
        "{settings}"
    );
    assert_eq!(settings["apiKey"]["set"], false);
}

/// A model Wisp does not know takes the window the endpoint's `/models` says (asked once, at
/// the first run), unless the person set one in Settings → Model; bad settings are refused and
/// change nothing.
#[tokio::test]
async fn a_models_window_is_the_persons_else_what_the_endpoint_lists() {
    const LISTED: u64 = 24_000;
    let endpoint = SimServer::start(SimConfig {
        models: vec!["qwen3-coder".to_owned(), "other-coder".to_owned()],
        no_key: true,
        strict_fields: true,
        lists_windows: true,
        context_window: LISTED,
        ..SimConfig::default()
    })
    .await
    .unwrap();
    let w = configured(EnvModel::default()).await;
    w.ok(
        "PUT",
        "/api/settings",
        Some(json!({"provider": "openai_compatible", "baseUrl": format!("{}/v1", endpoint.base_url()), "model": "qwen3-coder", "thinking": "disabled"})),
    )
    .await;
    let before = w.ok("GET", "/api/settings/context", None).await;
    assert_eq!(before["model"], "qwen3-coder");
    assert_eq!(before["window"], 131_072, "{before}");
    assert_eq!(before["windowSource"], "default", "not asked before a run");
    let s = w.session().await;
    let run = w
        .drive(&w.run(&s, "[demo:multi] look").await, "approve")
        .await;
    assert_eq!(run["status"], "completed", "{run}");
    assert_eq!(run["steps"][0]["context"]["window"], LISTED, "{run}");
    let listed = w.ok("GET", "/api/settings/context", None).await;
    assert_eq!(listed["window"], LISTED, "{listed}");
    assert_eq!(listed["windowSource"], "provider", "{listed}");
    let asked = || {
        endpoint
            .requests()
            .iter()
            .filter(|r| r.path.ends_with("/models"))
            .count()
    };
    let lists = asked();
    w.drive(&w.run(&s, "hello").await, "approve").await;
    assert_eq!(asked(), lists, "asked once per model");

    // The person's window wins, from the next request on.
    let set = w
        .ok(
            "PUT",
            "/api/settings/context",
            Some(json!({"windows": {"qwen3-coder": 8192}, "spendingWarning": null, "stopAtLimit": false})),
        )
        .await;
    assert_eq!(set["window"], 8192, "{set}");
    assert_eq!(set["windowSource"], "setting", "{set}");
    let run = w.drive(&w.run(&s, "hello again").await, "approve").await;
    assert_eq!(run["steps"][0]["context"]["window"], 8192, "{run}");

    for bad in [
        json!({"windows": {"qwen3-coder": 4095}, "stopAtLimit": false}),
        json!({"windows": {"qwen3-coder": 16_777_217}, "stopAtLimit": false}),
        json!({"windows": {"qwen3-coder": 8192.5}, "stopAtLimit": false}),
        json!({"windows": {"two words": 8192}, "stopAtLimit": false}),
        json!({"windows": {}, "spendingWarning": 0, "stopAtLimit": false}),
        json!({"windows": {}, "spendingWarning": -1, "stopAtLimit": false}),
        json!({"windows": {}, "spendingWarning": 1_000_001, "stopAtLimit": false}),
        json!({"windows": {}, "stopAtLimit": false, "other": 1}),
        json!({"windows": {}}),
    ] {
        let (status, body) = w
            .call("PUT", "/api/settings/context", Some(bad.clone()))
            .await;
        assert_eq!(status, 400, "{bad} → {body}");
    }
    let many: serde_json::Map<String, Value> =
        (0..51).map(|i| (format!("m{i}"), json!(8192))).collect();
    let (status, _) = w
        .call(
            "PUT",
            "/api/settings/context",
            Some(json!({"windows": many, "stopAtLimit": false})),
        )
        .await;
    assert_eq!(status, 400, "at most 50 models");
    assert_eq!(
        w.ok("GET", "/api/settings/context", None).await["windows"],
        json!({"qwen3-coder": 8192}),
        "nothing changed"
    );
    // A whole number written as a float is a whole number.
    let set = w
        .ok(
            "PUT",
            "/api/settings/context",
            Some(json!({"windows": {"qwen3-coder": 65536.0, "other-coder": 9000}, "stopAtLimit": false})),
        )
        .await;
    assert_eq!(set["windows"]["qwen3-coder"], 65_536, "{set}");

    // A model whose window is set before its first run: the endpoint is not asked (but by
    // the connection check a change of settings makes, once).
    let before = asked();
    w.ok(
        "PUT",
        "/api/settings",
        Some(json!({"provider": "openai_compatible", "baseUrl": format!("{}/v1", endpoint.base_url()), "model": "other-coder", "thinking": "disabled"})),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while asked() == before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no connection check"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let lists = asked();
    assert_eq!(lists, before + 1);
    let run = w.drive(&w.run(&s, "hello").await, "approve").await;
    assert_eq!(run["steps"][0]["context"]["window"], 9000, "{run}");
    assert_eq!(asked(), lists, "a set window needs no model list");
}

/// A session's runs go on past the spending warning unless the person chose to stop there;
/// then a run stops before its next request once the session's cost (its own so far included)
/// has reached it, saying so, and a new run asks the model nothing.
#[tokio::test]
async fn a_run_stops_at_the_spending_warning_only_when_asked_to() {
    let w = configured(EnvModel::default()).await;
    let price = json!({"cacheHit": 100.0, "cacheMiss": 100.0, "output": 100.0});
    w.ok(
        "PUT",
        "/api/settings",
        Some(json!({
            "provider": "deepseek", "baseUrl": format!("{}/v1", w.sim.base_url()),
            "model": "deepseek-v4-flash", "thinking": "enabled",
            "prices": {"currency": "USD", "source": "test", "asOf": "2026-12-07", "models": {"deepseek-v4-flash": price}},
        })),
    )
    .await;
    w.ok(
        "PUT",
        "/api/settings/api-key",
        Some(json!({"value": w.sim.api_key(), "storage": "process"})),
    )
    .await;
    let context = |warning: f64, stop: bool| json!({"windows": {}, "spendingWarning": warning, "stopAtLimit": stop});
    // A warning only: the run goes on past it.
    let set = w
        .ok("PUT", "/api/settings/context", Some(context(0.01, false)))
        .await;
    assert_eq!(set["spendingWarning"], 0.01);
    assert_eq!(set["currency"], "USD");
    let s = w.session().await;
    let first = w
        .drive(&w.run(&s, "[demo:multi] look").await, "approve")
        .await;
    assert_eq!(first["status"], "completed", "{first}");
    let cost = first["usage"]["estimatedCost"].as_f64().unwrap();
    assert!(cost > 0.01, "one run passes the warning: {cost}");

    // Stop at the limit: the session is past it, so a new run asks nothing.
    w.ok("PUT", "/api/settings/context", Some(context(0.01, true)))
        .await;
    let chats = w.sim.chat_requests().len();
    let stopped = w.finished(&w.run(&s, "[demo:multi] again").await).await;
    assert_eq!(stopped["status"], "failed", "{stopped}");
    let error = &stopped["error"];
    assert_eq!(error["kind"], "spending_limit", "{stopped}");
    assert_eq!(error["params"]["limit"], "0.01", "{stopped}");
    assert_eq!(error["params"]["currency"], "USD", "{stopped}");
    assert_eq!(
        error["params"]["cost"],
        format!("{cost:.6}"),
        "the session's cost: {stopped}"
    );
    assert_eq!(
        w.sim.chat_requests().len(),
        chats,
        "the model was not asked"
    );

    // A limit the session has not reached: the run stops before the round after the one that
    // reached it, its own cost counted.
    let limit = cost + cost / 4.0;
    w.ok("PUT", "/api/settings/context", Some(context(limit, true)))
        .await;
    let stopped = w
        .drive(&w.run(&s, "[demo:multi] once more").await, "approve")
        .await;
    assert_eq!(stopped["status"], "failed", "{stopped}");
    assert_eq!(stopped["error"]["kind"], "spending_limit", "{stopped}");
    assert_eq!(stopped["steps"].as_array().unwrap().len(), 1, "{stopped}");
    assert!(stopped["usage"]["estimatedCost"].as_f64().unwrap() > 0.0);

    // Switched off: runs go on.
    w.ok("PUT", "/api/settings/context", Some(context(limit, false)))
        .await;
    let goes = w.drive(&w.run(&s, "hello").await, "approve").await;
    assert_eq!(goes["status"], "completed", "{goes}");
}
