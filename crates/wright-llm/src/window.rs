//! Asking an OpenAI-compatible server how large its context window is, where it says:
//! llama.cpp (`GET /props`), vLLM (`GET /v1/models`) and Ollama (`POST /api/show`).
//!
//! Discovery is a best effort made once when a session starts: the three questions go out
//! together, the whole takes at most [`DISCOVERY_TIMEOUT`], each answer is read up to
//! [`MAX_DOCUMENT_BYTES`], and any failure just means "not known".

use std::time::Duration;

use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use serde_json::Value;

use crate::client::read_capped;
use crate::overflow::PLAUSIBLE_WINDOW;

/// How long discovery may take in all.
pub(crate) const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(2);
/// The most of each answer that is read (llama.cpp's `/props` carries the chat template,
/// Ollama's `/api/show` the licence and template: tens of kilobytes).
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// Where the server's own endpoints live: the base URL without its trailing `/v1`
/// (`http://host:8080/v1` → `http://host:8080`).
pub(crate) fn server_root(base_url: &str) -> &str {
    let base = base_url.trim().trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base)
}

/// llama.cpp: `default_generation_settings.n_ctx` of `GET /props` (the slot's window, which
/// is what a request must fit).
pub(crate) fn window_in_props(props: &Value) -> Option<u64> {
    props
        .pointer("/default_generation_settings/n_ctx")
        .and_then(Value::as_u64)
        .filter(|window| PLAUSIBLE_WINDOW.contains(window))
}

/// vLLM: `max_model_len` of the entry of `GET /v1/models` whose `id` is `model`, or of the only
/// entry.
pub(crate) fn window_in_models(models: &Value, model: &str) -> Option<u64> {
    let entries = models.get("data")?.as_array()?;
    let entry = match entries
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))
    {
        Some(entry) => entry,
        None if entries.len() == 1 => &entries[0],
        None => return None,
    };
    entry
        .get("max_model_len")
        .and_then(Value::as_u64)
        .filter(|window| PLAUSIBLE_WINDOW.contains(window))
}

/// The window Ollama runs a model with when its Modelfile sets no `num_ctx` (its default
/// `OLLAMA_CONTEXT_LENGTH`), whatever the model was trained for.
const OLLAMA_DEFAULT_WINDOW: u64 = 4096;

/// Ollama: `num_ctx` among the `parameters` of `POST /api/show` (the window the model runs
/// with, when its Modelfile sets one), else Ollama's default window, or the window the model
/// was trained for (`model_info["<architecture>.context_length"]`) if that is smaller. Ollama
/// cuts a prompt longer than its window without a word, so a window too small (compaction
/// comes early) is the safe side; a server started with a larger `OLLAMA_CONTEXT_LENGTH` needs
/// `context_window` set.
pub(crate) fn window_in_show(show: &Value) -> Option<u64> {
    // Only an answer shaped like Ollama's says anything about Ollama's window.
    if !["model_info", "parameters", "modelfile"]
        .iter()
        .any(|key| show.get(key).is_some())
    {
        return None;
    }
    let num_ctx = show
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|parameters| {
            parameters.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u64>().ok())
                    .flatten()
            })
        });
    let trained = || {
        let info = show.get("model_info")?;
        let architecture = info.get("general.architecture")?.as_str()?;
        info.get(format!("{architecture}.context_length"))?.as_u64()
    };
    num_ctx
        .or_else(|| Some(trained().map_or(OLLAMA_DEFAULT_WINDOW, |t| t.min(OLLAMA_DEFAULT_WINDOW))))
        .filter(|window| PLAUSIBLE_WINDOW.contains(window))
}

/// Asks the server at `base_url` for the window of `model`; `None` when no endpoint says.
pub(crate) async fn discover(
    http: &reqwest::Client,
    headers: &HeaderMap,
    base_url: &str,
    model: &str,
) -> Option<u64> {
    let mut headers = headers.clone();
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let base = base_url.trim().trim_end_matches('/');
    let root = server_root(base_url);
    let get = |url: String| http.get(url).headers(headers.clone());
    let props = document(get(format!("{root}/props")));
    let models = document(get(format!("{base}/models")));
    let show = document(
        http.post(format!("{root}/api/show"))
            .headers(headers.clone())
            .json(&serde_json::json!({ "model": model })),
    );
    let asking = async {
        let (props, models, show) = futures::join!(props, models, show);
        props
            .as_ref()
            .and_then(window_in_props)
            .or_else(|| window_in_models(models.as_ref()?, model))
            .or_else(|| window_in_show(show.as_ref()?))
    };
    tokio::time::timeout(DISCOVERY_TIMEOUT, asking)
        .await
        .ok()
        .flatten()
}

/// The JSON document a request answers with, if it succeeds with one.
async fn document(request: reqwest::RequestBuilder) -> Option<Value> {
    let response = request.send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let body = read_capped(response, MAX_DOCUMENT_BYTES, DISCOVERY_TIMEOUT).await?;
    serde_json::from_slice(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_server_root_drops_a_trailing_v1() {
        assert_eq!(
            server_root("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            server_root("http://127.0.0.1:8080/v1/"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            server_root("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            server_root("https://example.com/llm/v1"),
            "https://example.com/llm"
        );
    }

    #[test]
    fn llama_cpp_props_give_the_slot_window() {
        let props = json!({
            "default_generation_settings": {"n_ctx": 4096, "params": {"n_predict": -1}},
            "total_slots": 1,
            "chat_template": "{% for message in messages %}...{% endfor %}"
        });
        assert_eq!(window_in_props(&props), Some(4096));
        assert_eq!(window_in_props(&json!({"total_slots": 1})), None);
    }

    #[test]
    fn vllm_models_give_the_served_models_max_len() {
        let models = json!({
            "object": "list",
            "data": [
                {"id": "other", "object": "model", "max_model_len": 2048},
                {"id": "qwen", "object": "model", "max_model_len": 32768}
            ]
        });
        assert_eq!(window_in_models(&models, "qwen"), Some(32768));
        assert_eq!(window_in_models(&models, "absent"), None);
        let one = json!({"data": [{"id": "served-name", "max_model_len": 8192}]});
        assert_eq!(window_in_models(&one, "alias"), Some(8192));
        let openai = json!({"data": [{"id": "gpt-4.1", "object": "model", "owned_by": "openai"}]});
        assert_eq!(window_in_models(&openai, "gpt-4.1"), None);
    }

    #[test]
    fn ollama_show_prefers_num_ctx_and_else_takes_ollamas_default_window() {
        let show = json!({
            "parameters": "stop \"<|im_end|>\"\nnum_ctx 8192\ntemperature 0.7",
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}
        });
        assert_eq!(window_in_show(&show), Some(8192));
        let trained_only = json!({
            "parameters": "temperature 0.7",
            "model_info": {"general.architecture": "llama", "llama.context_length": 131072}
        });
        assert_eq!(window_in_show(&trained_only), Some(4096));
        let small = json!({"model_info": {"general.architecture": "x", "x.context_length": 2048}});
        assert_eq!(window_in_show(&small), Some(2048));
        assert_eq!(window_in_show(&json!({"license": "..."})), None);
    }

    #[test]
    fn implausible_windows_are_ignored() {
        let props = json!({"default_generation_settings": {"n_ctx": 0}});
        assert_eq!(window_in_props(&props), None);
    }
}
