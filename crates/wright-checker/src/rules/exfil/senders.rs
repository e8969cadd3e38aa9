//! What network senders send: the files, data, credentials and standard input of `curl`,
//! `wget`, HTTPie, raw sockets, `ssh`, remote copiers and the like, read from their words.

use crate::argv::split;
use crate::script::Word;

/// What a network sender is given to send, sorted by how it is judged.
#[derive(Debug, Default)]
pub(super) struct Sent {
    /// Files it sends, as written (`@-`, `-` and `/dev/stdin` mean its standard input).
    pub files: Vec<(Word, String)>,
    /// Data and addresses: a secret in them, of any kind, is sent.
    pub data: Vec<Word>,
    /// Credentials it authenticates with (headers, `-u`): only a secret file or the
    /// environment there is a leak.
    pub credentials: Vec<Word>,
    /// Whether it sends its standard input.
    pub stdin: bool,
}

impl Sent {
    fn file(&mut self, word: &Word, path: &str) {
        if matches!(path, "-" | "/dev/stdin" | ".") {
            self.stdin = true;
        } else {
            self.files.push((word.clone(), path.to_string()));
        }
    }
}

/// The value of option `name` as written: `--name=value` is split off a word of `args`, whose
/// source and substitutions it keeps.
fn written_value(args: &[Word], name: &str, value: &Word) -> Word {
    let prefix = format!("{name}=");
    match args
        .iter()
        .find(|w| w.text().starts_with(&prefix) && !w.subs.is_empty())
    {
        Some(word) if value.subs.is_empty() => Word {
            values: value.values.clone(),
            ..word.clone()
        },
        _ => value.clone(),
    }
}

/// `curl` options that take a value.
const CURL_VALUES: &[&str] = &[
    "-d",
    "--data",
    "--data-binary",
    "--data-raw",
    "--data-ascii",
    "--data-urlencode",
    "--json",
    "-F",
    "--form",
    "--form-string",
    "-T",
    "--upload-file",
    "-H",
    "--header",
    "-u",
    "--user",
    "--oauth2-bearer",
    "-U",
    "--proxy-user",
    "-o",
    "--output",
    "-X",
    "--request",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-b",
    "--cookie",
    "-c",
    "--cookie-jar",
    "--url",
    "-K",
    "--config",
    "-x",
    "--proxy",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-w",
    "--write-out",
    "-r",
    "--range",
    "--retry",
    "-E",
    "--cert",
    "--key",
    "--cacert",
    "--capath",
    "--resolve",
    "--connect-to",
    "-C",
    "--continue-at",
    "-y",
    "--speed-time",
    "-Y",
    "--speed-limit",
    "--limit-rate",
    "--interface",
    "--dns-servers",
];

/// What `curl ARGS` sends.
fn curl(args: &[Word]) -> Sent {
    let parsed = split(args, CURL_VALUES);
    let mut sent = Sent::default();
    for (name, value) in &parsed.values {
        let value = &written_value(args, name, value);
        let text = value.text();
        match name.as_str() {
            "-d" | "--data" | "--data-binary" | "--data-ascii" | "--json" => {
                match text.strip_prefix('@') {
                    Some(path) => sent.file(value, path),
                    None => sent.data.push(value.clone()),
                }
            }
            "--data-urlencode" => match text.split_once('@') {
                Some((name, path)) if !name.contains('=') => sent.file(value, path),
                _ => sent.data.push(value.clone()),
            },
            "-F" | "--form" => {
                let content = text.split_once('=').map_or(text, |(_, v)| v);
                match content.strip_prefix('@').or(content.strip_prefix('<')) {
                    Some(path) => sent.file(value, path.split(';').next().unwrap_or(path)),
                    None => sent.data.push(value.clone()),
                }
            }
            "-T" | "--upload-file" => sent.file(value, text),
            "--data-raw" | "--form-string" | "--url" => sent.data.push(value.clone()),
            "-H" | "--header" | "-u" | "--user" | "--oauth2-bearer" | "-U" | "--proxy-user"
            | "-b" | "--cookie" => match text.strip_prefix('@') {
                Some(path) => sent.file(value, path),
                None => sent.credentials.push(value.clone()),
            },
            _ => {}
        }
    }
    // `-d@file`, `-Ffield=@file`, `-Tfile`: a short option with its value attached.
    for flag in &parsed.flags {
        let attached = ["-d", "-F", "-T"]
            .iter()
            .find_map(|o| flag.strip_prefix(o).map(|value| (*o, value)));
        if let Some((option, value)) = attached.filter(|(_, v)| !v.is_empty()) {
            let word = Word::synthetic(value.to_string(), false);
            let content = match option {
                "-F" => value.split_once('=').map_or(value, |(_, v)| v),
                "-d" => value,
                _ => {
                    sent.file(&word, value);
                    continue;
                }
            };
            match content.strip_prefix('@').or(content.strip_prefix('<')) {
                Some(path) => sent.file(&word, path),
                None => sent.data.push(word),
            }
        }
    }
    sent.data.extend(parsed.operands.into_iter().cloned());
    sent
}

/// `wget` options that take a value.
const WGET_VALUES: &[&str] = &[
    "--post-file",
    "--body-file",
    "--post-data",
    "--body-data",
    "--header",
    "-O",
    "--output-document",
    "-o",
    "--output-file",
    "-P",
    "--directory-prefix",
    "-U",
    "--user-agent",
    "--method",
    "--user",
    "--password",
    "-t",
    "--tries",
    "-T",
    "--timeout",
    "-e",
    "--execute",
];

/// What `wget ARGS` sends.
fn wget(args: &[Word]) -> Sent {
    let parsed = split(args, WGET_VALUES);
    let mut sent = Sent::default();
    for (name, value) in &parsed.values {
        let value = &written_value(args, name, value);
        match name.as_str() {
            "--post-file" | "--body-file" => sent.file(value, value.text()),
            "--post-data" | "--body-data" => sent.data.push(value.clone()),
            "--header" | "--user" | "--password" => sent.credentials.push(value.clone()),
            _ => {}
        }
    }
    sent.data.extend(parsed.operands.into_iter().cloned());
    sent
}

/// What HTTPie (`http`, `https`) or `xh` sends: `field=@file` and `@file` items are files,
/// `Header:value` items are credentials, anything else data; it sends what it is piped.
fn httpie(args: &[Word]) -> Sent {
    let mut sent = Sent {
        stdin: !args.iter().any(|w| w.is("--ignore-stdin") || w.is("-I")),
        ..Sent::default()
    };
    for word in args.iter().filter(|w| !w.text().starts_with('-')) {
        let text = word.text();
        let header = text
            .find(':')
            .is_some_and(|colon| !text[..colon].contains(['=', '/', '@']) && !text.contains("://"))
            && !text[text.find(':').unwrap_or(0)..].starts_with(":=");
        let field_file = text.split_once('@').filter(|(field, _)| {
            field
                .trim_end_matches('=')
                .trim_end_matches(':')
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
        if let Some((_, path)) = field_file {
            sent.file(word, path);
        } else if let Some(path) = text.strip_prefix('@') {
            sent.file(word, path);
        } else if header {
            sent.credentials.push(word.clone());
        } else {
            sent.data.push(word.clone());
        }
    }
    sent
}

/// Whether `text` names a place on another machine (`host:path`, `user@host:`, `s3://b/k`).
fn remote(text: &str) -> bool {
    if text.contains("://") {
        return !text.starts_with("file://");
    }
    match text.find(':') {
        Some(colon) => {
            let host = &text[..colon];
            !host.is_empty() && !host.contains('/')
        }
        None => false,
    }
}

/// What a copier (`scp`, `rsync`, `rclone copy`, `aws s3 cp`) sends: its sources, when its
/// destination (the last operand) is on another machine.
fn copier(operands: &[&Word]) -> Sent {
    let mut sent = Sent::default();
    if let Some((destination, sources)) = operands.split_last()
        && remote(destination.text())
    {
        for source in sources.iter().filter(|s| !remote(s.text())) {
            sent.file(source, source.text());
        }
    }
    sent
}

/// What `PROGRAM ARGS` sends over the network, if it is a network sender.
pub(super) fn sends(program: &str, args: &[Word]) -> Option<Sent> {
    let operands = |values: &[&str]| split(args, values).operands;
    let sent = match program {
        "curl" => curl(args),
        "wget" => wget(args),
        "http" | "https" | "xh" | "xhs" => httpie(args),
        "nc" | "ncat" | "netcat" | "telnet" => Sent {
            stdin: !args.iter().any(|w| w.is("-z")),
            ..Sent::default()
        },
        "openssl" => Sent {
            stdin: args.first().is_some_and(|w| w.is("s_client")),
            ..Sent::default()
        },
        "socat" => {
            let mut sent = Sent::default();
            for word in args
                .iter()
                .filter(|w| !w.text().starts_with('-') || w.is("-"))
            {
                let text = word.text();
                let lower = text.to_ascii_lowercase();
                if text == "-" || lower.starts_with("stdin") || lower.starts_with("stdio") {
                    sent.stdin = true;
                }
                let file = ["file:", "open:", "gopen:"]
                    .iter()
                    .find_map(|p| lower.starts_with(p).then(|| &text[p.len()..]));
                if let Some(path) = file {
                    sent.file(word, path.split(',').next().unwrap_or(path));
                }
            }
            sent
        }
        "ssh" => {
            let parsed = split(
                args,
                &[
                    "-i", "-p", "-o", "-l", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e",
                    "-m", "-O", "-Q", "-S", "-W", "-w", "-B",
                ],
            );
            Sent {
                stdin: !parsed.operands.is_empty()
                    && !parsed.has("-n", Some('n'))
                    && !parsed.has("-N", Some('N')),
                ..Sent::default()
            }
        }
        "sftp" | "ftp" | "lftp" | "mail" | "mailx" | "sendmail" | "msmtp" | "mutt" => Sent {
            stdin: true,
            ..Sent::default()
        },
        "scp" => copier(&operands(&[
            "-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-X",
        ])),
        "rsync" => copier(&operands(&[
            "-e",
            "--rsh",
            "--exclude",
            "--include",
            "--filter",
            "-f",
            "--exclude-from",
            "--include-from",
            "--files-from",
            "--rsync-path",
            "--port",
            "--password-file",
            "-T",
            "--temp-dir",
            "--chmod",
            "--chown",
            "--log-file",
            "--partial-dir",
            "--backup-dir",
            "--suffix",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
        ])),
        "rclone" | "gsutil" => {
            let ops = operands(&["--config", "-c", "--transfers"]);
            match ops.split_first() {
                Some((verb, rest))
                    if matches!(
                        verb.text(),
                        "copy" | "copyto" | "sync" | "move" | "moveto" | "cp" | "mv" | "rsync"
                    ) =>
                {
                    copier(rest)
                }
                Some((verb, [destination])) if verb.is("rcat") && remote(destination.text()) => {
                    Sent {
                        stdin: true,
                        ..Sent::default()
                    }
                }
                _ => return None,
            }
        }
        "aws" | "gcloud" => {
            let ops = operands(&["--profile", "--region", "--endpoint-url", "--project"]);
            let storage = ops.first().is_some_and(|w| w.is("s3") || w.is("storage"));
            let copies = ops
                .get(1)
                .is_some_and(|w| matches!(w.text(), "cp" | "mv" | "sync"));
            if !(storage && copies) {
                return None;
            }
            let mut sent = copier(&ops[2..]);
            if ops.get(2).is_some_and(|w| w.is("-")) && ops.len() > 3 {
                sent.stdin = true;
            }
            sent
        }
        "gh" => {
            let ops = operands(&["-d", "--desc", "-f", "--filename"]);
            if !(ops.first().is_some_and(|w| w.is("gist"))
                && ops.get(1).is_some_and(|w| w.is("create") || w.is("new")))
            {
                return None;
            }
            let mut sent = Sent::default();
            for file in &ops[2..] {
                sent.file(file, file.text());
            }
            sent.stdin |= ops.len() == 2;
            sent
        }
        "croc" | "wormhole" | "ffsend" => {
            let ops = operands(&[]);
            let mut sent = Sent::default();
            for file in ops.iter().skip(1) {
                sent.file(file, file.text());
            }
            sent
        }
        "dig" | "nslookup" | "host" | "drill" | "ping" | "ping6" | "traceroute" => Sent {
            data: operands(&["-c", "-t", "-p", "-i", "-W", "-w", "-s"])
                .into_iter()
                .cloned()
                .collect(),
            ..Sent::default()
        },
        _ => return None,
    };
    Some(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_places_are_host_colon_path_or_urls() {
        assert!(remote("deploy@host:/srv"));
        assert!(remote("host:"));
        assert!(remote("s3://bucket/key"));
        assert!(!remote("build/app:1.tar"));
        assert!(!remote("./a:b"));
        assert!(!remote("/tmp/x"));
    }
}
