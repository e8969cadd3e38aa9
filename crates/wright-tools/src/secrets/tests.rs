use pretty_assertions::assert_eq;
use serde_json::json;
use wright_protocol::{ErrorCode, ToolResult};

use super::*;

fn masked(text: &str) -> String {
    SecretMasker::default().mask(text).into_owned()
}

#[test]
fn every_builtin_pattern_compiles() {
    for regex in [&OPEN_KEY_BLOCK, &END_OF_KEY_BLOCK, &KEY_MATERIAL] {
        assert!(regex.is_some());
    }
    for (kind, pattern) in BUILTIN_PATTERNS {
        assert!(Regex::new(pattern).is_ok(), "{kind}: {pattern}");
    }
    assert_eq!(builtin_patterns().len(), BUILTIN_PATTERNS.len());
    // The set that lets a text without a secret pass at once.
    assert_eq!(
        BUILTIN_SET.as_ref().map(RegexSet::len),
        Some(BUILTIN_PATTERNS.len())
    );
}

#[test]
fn provider_and_cloud_credentials_are_masked() {
    let cases = [
        (
            "key: sk-proj-Abc123def456ghi789jkl012mno",
            "key: [REDACTED openai key]",
        ),
        (
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz",
            "[REDACTED anthropic key]",
        ),
        (
            "id AKIAIOSFODNN7EXAMPLE ok",
            "id [REDACTED aws access key id] ok",
        ),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED aws secret key]",
        ),
        (
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AWS_SECRET_ACCESS_KEY=[REDACTED aws secret key]",
        ),
        (
            "token ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "token [REDACTED github token]",
        ),
        ("glpat-abcdefghijklmnopqrst1", "[REDACTED gitlab token]"),
        ("xoxb-1234567890-abcdefghij", "[REDACTED slack token]"),
        (
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "[REDACTED google api key]",
        ),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "Authorization: Bearer [REDACTED jwt]",
        ),
        (
            "DATABASE_PASSWORD=hunter2hunter2",
            "DATABASE_PASSWORD=[REDACTED secret]",
        ),
        (
            "export GITHUB_TOKEN=\"abcdefgh12345678\"",
            "export GITHUB_TOKEN=\"[REDACTED secret]\"",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(masked(input), expected, "{input}");
    }
}

#[test]
fn a_private_key_block_is_masked_whole_even_when_cut_off() {
    let key = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter";
    assert_eq!(masked(key), "before\n[REDACTED private key]\nafter");
    let cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n";
    assert_eq!(masked(cut), "[REDACTED private key]\n");
}

/// Issue 12: key bodies leaked when a page or `tail` did not include the BEGIN line, and a
/// cut-off block swallowed Read's footer.
#[test]
fn a_key_body_is_masked_without_its_header_and_a_read_footer_stays() {
    let line = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
    let page = format!(
        "     1\t-----BEGIN RSA PRIVATE KEY-----\n     2\t{line}\n     3\t{line}\n\n(File has more lines; use offset=4 to read more.)"
    );
    let shown = masked(&page);
    assert!(!shown.contains(line), "{shown}");
    assert!(
        shown.ends_with("(File has more lines; use offset=4 to read more.)"),
        "{shown}"
    );

    let tail = format!("{line}\n{line}\nAbCd12==\n-----END RSA PRIVATE KEY-----\n");
    assert_eq!(masked(&tail), "[REDACTED private key]\n");
    let numbered =
        format!("    26\t{line}\n    27\t{line}\n    28\t-----END OPENSSH PRIVATE KEY-----");
    assert_eq!(masked(&numbered), "[REDACTED private key]");

    let cut_header = format!("ATE KEY-----\n{line}\n{line}\nnext");
    let shown = masked(&cut_header);
    assert!(!shown.contains(line), "{shown}");
    assert!(shown.ends_with("\nnext"), "{shown}");

    // Base64 in code, with no key header or footer near it, is left alone.
    let blob = format!("let icon = \"\n{line}\n{line}\n\";");
    assert_eq!(masked(&blob), blob);
}

#[test]
fn keys_next_to_non_ascii_text_are_masked() {
    // An ASCII word boundary: a key after a non-ASCII letter or inside non-ASCII prose.
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123";
    for text in [
        format!("clé: {key}"),
        format!("«{key}»"),
        format!("日本語{key}"),
    ] {
        let masked = masked(&text);
        assert!(!masked.contains("abcdefghijklmnop"), "{masked}");
        assert!(masked.contains("[REDACTED anthropic key]"), "{masked}");
    }
    assert_eq!(
        masked("naïve sk-ant is a prefix"),
        "naïve sk-ant is a prefix"
    );
}

#[test]
fn ordinary_code_and_output_are_left_alone() {
    let ordinary = [
        "let token = parse_token(input);",
        "password: ${{ secrets.DB_PASSWORD }}",
        "API_KEY=$OPENAI_API_KEY",
        "TOKEN=short",
        "fn secret_key_from_env() -> Option<String>",
        "sk-short",
        "test result: ok. 12 passed; 0 failed",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "commit 0bdc962a7f1e3c4b5d6e7f8091a2b3c4d5e6f708",
    ];
    for text in ordinary {
        assert!(
            matches!(SecretMasker::default().mask(text), Cow::Borrowed(_)),
            "{text} was changed to {}",
            masked(text)
        );
    }
}

#[test]
fn literal_values_and_secret_named_environment_variables_are_masked() {
    let policy = SecretPolicy {
        literals: vec!["plain-looking-value".into(), "short".into()],
        ..SecretPolicy::default()
    };
    let masker = SecretMasker::new(&policy).unwrap().from_env([
        (
            "MY_SERVICE_AUTH".to_string(),
            "opaque-credential-9".to_string(),
        ),
        (
            "PATH".to_string(),
            "/usr/bin:/bin:/usr/local/bin".to_string(),
        ),
        ("DB_PASSWORD".to_string(), "tiny".to_string()),
        (
            "GIT_AUTHOR_NAME".to_string(),
            "Jane Q. Developer".to_string(),
        ),
    ]);
    assert_eq!(
        masker.mask("a plain-looking-value, opaque-credential-9 and short"),
        "a [REDACTED secret], [REDACTED secret] and short"
    );
    assert_eq!(
        masker.mask("/usr/bin:/bin:/usr/local/bin"),
        "/usr/bin:/bin:/usr/local/bin"
    );
    assert_eq!(masker.mask("tiny"), "tiny");
    assert_eq!(masker.mask("by Jane Q. Developer"), "by Jane Q. Developer");
}

#[test]
fn configured_patterns_are_masked_and_a_bad_one_is_named() {
    let policy = SecretPolicy {
        patterns: vec![r"corp-[0-9]{6}".into()],
        ..SecretPolicy::default()
    };
    let masker = SecretMasker::new(&policy).unwrap();
    assert_eq!(
        masker.mask("id corp-123456"),
        "id [REDACTED configured pattern]"
    );

    let bad = SecretPolicy {
        patterns: vec!["(unclosed".into()],
        ..SecretPolicy::default()
    };
    let error = SecretMasker::new(&bad).unwrap_err();
    assert!(error.to_string().contains("\"(unclosed\""), "{error}");
}

#[test]
fn a_disabled_masker_changes_nothing() {
    let policy = SecretPolicy {
        enabled: false,
        literals: vec!["plain-looking-value".into()],
        ..SecretPolicy::default()
    };
    let text = "sk-proj-Abc123def456ghi789jkl012mno plain-looking-value";
    assert_eq!(SecretMasker::new(&policy).unwrap().mask(text), text);
    assert_eq!(SecretMasker::disabled().mask(text), text);
}

#[test]
fn a_result_is_masked_in_its_text_data_and_error() {
    const KEY: &str = "sk-proj-Abc123def456ghi789jkl012mno";
    let mut result = ToolResult::error(ErrorCode::Io, format!("cannot use {KEY}"));
    result.text = format!("stdout: {KEY}");
    result.data = json!({"stdout": KEY, "lines": [KEY, 3], "exit_code": 0});
    SecretMasker::default().mask_result(&mut result);
    let shown = serde_json::to_string(&result).unwrap();
    assert!(!shown.contains(KEY), "{shown}");
    assert_eq!(result.data["lines"][1], 3);
    assert_eq!(result.data["exit_code"], 0);
    assert_eq!(result.data["stdout"], "[REDACTED openai key]");
}

#[test]
fn a_key_block_split_over_several_strings_is_masked_line_by_line() {
    let mut data = json!({"matches": [
        {"file": "deploy/id_rsa", "line": 1, "text": "-----BEGIN RSA PRIVATE KEY-----"},
        {"file": "deploy/id_rsa", "line": 2, "text": "Proc-Type: 4,ENCRYPTED"},
        {"file": "deploy/id_rsa", "line": 3, "text": "MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"},
        {"file": "deploy/id_rsa", "line": 4, "text": "-----END RSA PRIVATE KEY-----"},
        {"file": "src/main.rs", "line": 9, "text": "let config = load_configuration();"},
        {"file": "src/keys.rs", "line": 2, "text": "AAAAAAAAAAAAAAAAAAAAAAAA"},
    ]});
    SecretMasker::default().mask_json(&mut data);
    let texts: Vec<&str> = data["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        vec![
            "[REDACTED private key]",
            "[REDACTED private key]",
            "[REDACTED private key]",
            "[REDACTED private key]",
            "let config = load_configuration();",
            "AAAAAAAAAAAAAAAAAAAAAAAA",
        ]
    );
    assert_eq!(data["matches"][1]["file"], "deploy/id_rsa");
}

#[test]
fn each_string_of_data_is_masked_as_it_would_be_alone() {
    // Each secret the only one in its data, between strings that end and begin with a word
    // character: were the strings looked at joined with no break, the AWS key id's word
    // boundaries and the `^` of a key body's line would not hold there.
    let secrets = [
        "AKIAIOSFODNN7EXAMPLE",
        "sk-proj-Abc123def456ghi789jkl012mno",
        "MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMx\n-----END RSA PRIVATE KEY-----",
    ];
    for secret in secrets {
        let alone = masked(secret);
        assert_ne!(alone, secret);
        let mut data = json!({"strings": ["word", secret, "x"], "nested": {"s": secret}, "n": 7});
        SecretMasker::default().mask_json(&mut data);
        assert_eq!(
            data,
            json!({"strings": ["word", alone, "x"], "nested": {"s": alone}, "n": 7}),
            "{secret}"
        );
    }
    // A literal value, and data with nothing to mask, which stays as it was.
    let masker = SecretMasker::new(&SecretPolicy {
        literals: vec!["correct-horse-battery".to_string()],
        ..SecretPolicy::default()
    })
    .unwrap();
    let mut data = json!(["a", "the correct-horse-battery staple"]);
    masker.mask_json(&mut data);
    assert_eq!(data, json!(["a", "the [REDACTED secret] staple"]));
    let clean = json!({"definitions": [{"name": "parse", "signature": "fn parse(s: &str)"}]});
    let mut data = clean.clone();
    masker.mask_json(&mut data);
    assert_eq!(data, clean);
}

#[test]
fn every_builtin_pattern_holds_a_word_the_prefilter_looks_for() {
    // A sample of each builtin pattern, in their order: each must be masked, so the word
    // search must let it through (a pattern added without its word fails here).
    let samples = [
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4Nr0Q0abcdefgh\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAx4Nr0Q0abcdefgh\nabcdefghijklmnopqrstuv==\n-----END PRIVATE KEY-----",
        "ATE KEY-----\nMIIEowIBAAKCAQEAx4Nr0Q0abcdefgh",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
        "AKIAIOSFODNN7EXAMPLE",
        "Aws_Secret_Access_Key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "glpat-abcdefghijklmnopqrst1",
        "xoxb-1234567890-abcdefghij",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "rk_live_abcdefghijklmnopqrstuvwx",
        "hf_abcdefghijklmnopqrstuvwxyz01234567",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
        "DB_PASSWD=hunter2hunter2",
    ];
    assert_eq!(samples.len(), BUILTIN_PATTERNS.len());
    for ((kind, pattern), sample) in BUILTIN_PATTERNS.iter().zip(samples) {
        let regex = Regex::new(pattern).unwrap();
        assert!(regex.is_match(sample), "{kind}: sample {sample:?}");
        assert!(may_hold_builtin(sample), "{kind}: {sample:?} has no word");
        let masked = masked(&format!("before\n{sample}\nafter"));
        assert!(masked.contains("[REDACTED"), "{kind}: {masked}");
        // In data too (the joined strings pass the same search).
        let mut data = json!({"lines": ["before", sample, "after"]});
        SecretMasker::default().mask_json(&mut data);
        assert!(data.to_string().contains("[REDACTED"), "{kind}: {data}");
    }
    // The case-insensitive pattern folds ASCII case alone, as the word search does: a long
    // s (`ſ`) is no `s` to either.
    let aws = BUILTIN_PATTERNS
        .iter()
        .find(|(kind, _)| *kind == "aws secret key");
    let long_s = "aws_\u{17f}ecret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEabc";
    assert!(!Regex::new(aws.unwrap().1).unwrap().is_match(long_s));
    assert!(!may_hold_builtin(long_s));
    // Text without the words passes at once, unchanged, and so does data.
    let code = "fn parse(input: &str) -> Result<Ast> {}\nclass Tokenizer; int key_count;";
    assert!(!may_hold_builtin(code));
    assert_eq!(masked(code), code);
    let mut data = json!([{"name": "parse", "signature": code}]);
    let before = data.clone();
    SecretMasker::default().mask_json(&mut data);
    assert_eq!(data, before);
}
