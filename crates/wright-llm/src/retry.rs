//! The retry policy as pure functions: which failures heal, and how long to wait before the
//! next attempt (DESIGN §6: exponential backoff with jitter, `Retry-After` honoured).

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// The longest wait a server may ask for (`Retry-After`); longer requests are cut to this.
pub(crate) const MAX_SERVER_RETRY_DELAY: Duration = Duration::from_secs(60);
/// The longest backoff wright picks by itself, however many attempts are configured.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Backoff delays vary by up to this fraction either way, so clients do not retry in lockstep.
const JITTER_FRACTION: f64 = 0.2;

/// Whether an HTTP status is worth retrying: request timeout, conflict, rate limit and every
/// server error (including Anthropic's 529 "overloaded").
pub(crate) fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500..=599)
}

/// The delay before retry number `retry` (1 for the first): `base`, doubled for each further
/// retry, times a jitter factor in `1 ± 0.2` picked by `jitter_unit` in `[0, 1)`.
pub(crate) fn backoff_delay(base: Duration, retry: u32, jitter_unit: f64) -> Duration {
    let doublings = retry.saturating_sub(1).min(30);
    let delay = base.saturating_mul(1 << doublings).min(MAX_BACKOFF);
    let factor = 1.0 + (jitter_unit.clamp(0.0, 1.0) * 2.0 - 1.0) * JITTER_FRACTION;
    delay.mul_f64(factor)
}

/// The wait a server asked for in `retry-after-ms` (milliseconds) or `Retry-After` (seconds
/// or an HTTP date), capped at [`MAX_SERVER_RETRY_DELAY`]; `None` if it asked for nothing
/// readable.
pub(crate) fn server_requested_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
    };
    let from_millis = header("retry-after-ms")
        .and_then(|millis| millis.parse::<f64>().ok())
        .and_then(|millis| Duration::try_from_secs_f64(millis / 1000.0).ok());
    let requested = from_millis.or_else(|| {
        let value = header("retry-after")?;
        match value.parse::<f64>() {
            Ok(seconds) => Duration::try_from_secs_f64(seconds).ok(),
            Err(_) => {
                let at = parse_http_date(value)?;
                Some(at.duration_since(now).unwrap_or(Duration::ZERO))
            }
        }
    })?;
    Some(requested.min(MAX_SERVER_RETRY_DELAY))
}

/// Parses an HTTP-date (`Sun, 06 Nov 1994 08:49:37 GMT`, the IMF-fixdate servers send, is an
/// RFC 2822 date).
fn parse_http_date(text: &str) -> Option<SystemTime> {
    chrono::DateTime::parse_from_rfc2822(text)
        .ok()
        .map(SystemTime::from)
}

/// A duration as people read it in a retry reason: `300 ms`, `2 s`, `1.5 s`.
pub(crate) fn describe_duration(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use reqwest::header::HeaderValue;
    use std::time::UNIX_EPOCH;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn backoff_doubles_from_the_base_delay() {
        let base = Duration::from_millis(500);
        let delays: Vec<_> = (1..=4)
            .map(|retry| backoff_delay(base, retry, 0.5))
            .collect();
        assert_eq!(
            delays,
            [500, 1000, 2000, 4000].map(Duration::from_millis).to_vec()
        );
    }

    #[test]
    fn backoff_jitter_stays_within_twenty_percent() {
        let base = Duration::from_secs(1);
        assert_eq!(backoff_delay(base, 1, 0.0), Duration::from_millis(800));
        assert_eq!(backoff_delay(base, 1, 1.0), Duration::from_millis(1200));
    }

    #[test]
    fn backoff_is_capped_however_many_retries_are_allowed() {
        let delay = backoff_delay(Duration::from_millis(500), 100, 0.5);
        assert_eq!(delay, MAX_BACKOFF);
    }

    #[test]
    fn retry_after_in_seconds_is_honoured() {
        let delay = server_requested_delay(&headers(&[("retry-after", "7")]), SystemTime::now());
        assert_eq!(delay, Some(Duration::from_secs(7)));
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let delay = server_requested_delay(
            &headers(&[("retry-after", "7"), ("retry-after-ms", "250")]),
            SystemTime::now(),
        );
        assert_eq!(delay, Some(Duration::from_millis(250)));
    }

    #[test]
    fn retry_after_as_an_http_date_counts_from_now() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_767); // Sun, 06 Nov 1994 08:49:27 GMT
        let delay = server_requested_delay(
            &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            now,
        );
        assert_eq!(delay, Some(Duration::from_secs(10)));
    }

    #[test]
    fn a_retry_after_date_in_the_past_means_no_wait() {
        let delay = server_requested_delay(
            &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            SystemTime::now(),
        );
        assert_eq!(delay, Some(Duration::ZERO));
    }

    #[test]
    fn server_requested_waits_are_capped() {
        let delay = server_requested_delay(&headers(&[("retry-after", "3600")]), SystemTime::now());
        assert_eq!(delay, Some(MAX_SERVER_RETRY_DELAY));
    }

    #[test]
    fn unreadable_retry_after_values_are_ignored() {
        for value in ["soon", "-1", "Sun, 06 Nov 1994 25:00:00 GMT", ""] {
            let mut map = HeaderMap::new();
            map.insert("retry-after", HeaderValue::from_str(value).unwrap());
            assert_eq!(
                server_requested_delay(&map, SystemTime::now()),
                None,
                "{value}"
            );
        }
    }

    #[test]
    fn http_dates_convert_to_unix_time() {
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"),
            Some(UNIX_EPOCH)
        );
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2028 12:00:00 GMT"),
            Some(UNIX_EPOCH + Duration::from_secs(1_835_438_400))
        );
    }

    #[test]
    fn only_timeouts_conflicts_rate_limits_and_server_errors_are_retried() {
        let retried: Vec<u16> = [
            400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 529,
        ]
        .into_iter()
        .filter(|status| is_retryable_status(*status))
        .collect();
        assert_eq!(retried, vec![408, 409, 429, 500, 502, 503, 529]);
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(describe_duration(Duration::from_millis(300)), "300 ms");
        assert_eq!(describe_duration(Duration::from_secs(120)), "120 s");
        assert_eq!(describe_duration(Duration::from_millis(1500)), "1.5 s");
    }
}
