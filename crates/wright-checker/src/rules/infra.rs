//! Destroying infrastructure and data that live outside the project: Docker volumes and every
//! image or container at once, Terraform/Pulumi stacks, Kubernetes objects, Helm releases,
//! cloud storage and resources, databases and their tables, Redis and MongoDB data.
//!
//! Their everyday neighbours stay allowed: `docker ps`, `docker build`, `docker compose up` and
//! `down` (which keeps volumes unless `-v`), removing one named container or image, plain
//! `docker system prune` (dangling images and stopped containers only), `terraform plan`,
//! `kubectl get`/`apply`, `aws s3 ls`/`cp`, `psql -c 'SELECT 1'`, `redis-cli ping`.

use super::{Report, Rule, Site, fanout};
use crate::argv::split;
use crate::script::Word;

/// Docker's own options that take a value, before the command.
const DOCKER_VALUES: &[&str] = &[
    "-H",
    "--host",
    "-c",
    "--context",
    "-l",
    "--log-level",
    "--config",
];

/// `docker compose` options that take a value, before its command.
const COMPOSE_VALUES: &[&str] = &[
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--profile",
    "--env-file",
    "--project-directory",
    "--ansi",
    "--parallel",
];

/// `kubectl`/`oc` options that take a value.
const KUBECTL_VALUES: &[&str] = &[
    "-n",
    "--namespace",
    "--context",
    "--cluster",
    "--kubeconfig",
    "--user",
    "-s",
    "--server",
    "--token",
    "-l",
    "--selector",
    "-o",
    "--output",
    "-f",
    "--filename",
    "-c",
    "--container",
];

/// `aws` options that take a value.
const AWS_VALUES: &[&str] = &[
    "--profile",
    "--region",
    "--output",
    "--endpoint-url",
    "--query",
    "--color",
    "--ca-bundle",
    "--cli-read-timeout",
    "--cli-connect-timeout",
];

/// `docker exec` / `docker compose exec` options that take a value.
const EXEC_VALUES: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--detach-keys",
    "--index",
];

/// SQL words after `DROP` that name what holds data.
const DROPPED_CONTAINERS: &[&str] = &["DATABASE", "SCHEMA", "TABLE", "KEYSPACE", "COLLECTION"];

/// The command after leading options (those in `value_options` take a value) and the words
/// after it.
fn verb<'w>(args: &'w [Word], value_options: &[&str]) -> Option<(&'w str, &'w [Word])> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if word.dynamic || !word.text().starts_with('-') {
            return Some((word.text(), &args[i + 1..]));
        }
        i += if value_options.contains(&word.text()) {
            2
        } else {
            1
        };
    }
    None
}

/// What the command destroys, if it destroys infrastructure or data. `stdin` is what it reads
/// on standard input when known; `from_stdin` whether `xargs` adds its arguments.
fn destroys(
    program: &str,
    args: &[Word],
    stdin: Option<&str>,
    from_stdin: bool,
) -> Option<&'static str> {
    let parsed = split(args, &[]);
    let operand = |name: &str| parsed.operands.iter().any(|w| w.is(name));
    match program {
        "docker" | "podman" | "nerdctl" => docker(args, from_stdin),
        "docker-compose" | "podman-compose" => compose(args),
        "terraform" | "tofu" | "terragrunt" => {
            let (command, rest) = verb(args, &[])?;
            let rest = split(rest, &[]);
            let sub = rest.operands.first().map(|w| w.text());
            let destroys = command == "destroy"
                || (command == "apply"
                    && (rest.has("-destroy", None) || rest.has("--destroy", None)))
                || (command == "state" && sub == Some("rm"))
                || (command == "workspace" && sub == Some("delete"))
                || (program == "terragrunt" && operand("destroy"));
            destroys.then_some("destroys infrastructure that Terraform manages")
        }
        "pulumi" => {
            let (command, rest) = verb(args, &[])?;
            let sub = rest.first().map(Word::text);
            (matches!(command, "destroy" | "down") || (command == "stack" && sub == Some("rm")))
                .then_some("destroys the resources of a Pulumi stack")
        }
        "cdk" | "cdktf" => {
            (verb(args, &[])?.0 == "destroy").then_some("destroys a deployed CDK stack")
        }
        "serverless" | "sls" => {
            (verb(args, &[])?.0 == "remove").then_some("removes a deployed Serverless service")
        }
        "kubectl" | "oc" | "microk8s.kubectl" => {
            let (command, _) = verb(args, KUBECTL_VALUES)?;
            // `kubectl scale … --replicas=0` stops every pod of what it scales.
            let to_zero = command == "scale"
                && (args.iter().any(|w| w.is("--replicas=0"))
                    || args
                        .windows(2)
                        .any(|w| w[0].is("--replicas") && w[1].is("0")));
            if to_zero {
                return Some("scales workloads down to no pods at all");
            }
            matches!(command, "delete" | "drain")
                .then_some("deletes Kubernetes objects (or drains a node)")
        }
        "helm" => matches!(
            verb(args, KUBECTL_VALUES)?.0,
            "uninstall" | "delete" | "del" | "un"
        )
        .then_some("uninstalls a Helm release"),
        "aws" => {
            let operands = split(args, AWS_VALUES);
            let service = operands.operands.first().map(|w| w.text());
            let operation = operands.operands.get(1).map(|w| w.text()).unwrap_or("");
            let destroys = match service {
                Some("s3") => {
                    matches!(operation, "rm" | "rb")
                        || (operation == "sync" && operands.has("--delete", None))
                }
                Some(_) => ["delete-", "terminate-", "remove-", "purge-"]
                    .iter()
                    .any(|p| operation.starts_with(p)),
                None => false,
            };
            destroys.then_some("deletes cloud resources or stored data")
        }
        "gsutil" => {
            let (command, rest) = verb(args, &["-o", "-h", "-u"])?;
            let mirror_delete = command == "rsync" && split(rest, &[]).has("--delete", Some('d'));
            (matches!(command, "rm" | "rb") || mirror_delete)
                .then_some("deletes cloud storage objects or buckets")
        }
        "gcloud" => (operand("delete") || (operand("storage") && (operand("rm") || operand("rb"))))
            .then_some("deletes cloud resources or stored data"),
        "az" => (operand("delete") || operand("purge"))
            .then_some("deletes cloud resources or stored data"),
        "heroku" => parsed
            .operands
            .iter()
            .any(|w| matches!(w.text(), "apps:destroy" | "pg:reset" | "destroy"))
            .then_some("destroys a Heroku app or resets its database"),
        "fly" | "flyctl" => operand("destroy").then_some("destroys a Fly.io app or volume"),
        "dropdb" => Some("deletes a database"),
        "mysqladmin" => operand("drop").then_some("deletes a database"),
        "redis-cli" | "valkey-cli" | "keydb-cli" => {
            let flushes = |text: &str| {
                text.split_whitespace().any(|w| {
                    w.eq_ignore_ascii_case("flushall") || w.eq_ignore_ascii_case("flushdb")
                })
            };
            (parsed.operands.iter().any(|w| flushes(w.text())) || stdin.is_some_and(flushes))
                .then_some("deletes every key of a Redis database")
        }
        "mongo" | "mongosh" => {
            let drops = |text: &str| {
                let compact: String = text.split_whitespace().collect();
                ["dropDatabase(", ".drop(", "deleteMany({})", "remove({})"]
                    .iter()
                    .any(|call| compact.contains(call))
            };
            (args.iter().any(|w| drops(w.text())) || stdin.is_some_and(drops))
                .then_some("drops a MongoDB database or collection")
        }
        "psql" | "mysql" | "mariadb" | "sqlite3" | "duckdb" | "clickhouse-client" | "cockroach"
        | "pgcli" | "mycli" | "usql" | "sqlcmd" => {
            let sql = args
                .iter()
                .map(Word::text)
                .chain(stdin)
                .any(destructive_sql);
            sql.then_some("drops or empties database tables")
        }
        "npx" | "bunx" | "pnpx" => {
            let (command, rest) = verb(args, &["-p", "--package"])?;
            destroys(command, rest, stdin, from_stdin)
        }
        _ => framework_reset(program, args),
    }
}

/// Tasks of web frameworks' tools that drop or empty the development database: Rails/Rake
/// `db:drop`, `db:reset`, Laravel's `migrate:fresh` and `db:wipe`, Ecto's `ecto.drop`, …
const RESET_TASKS: &[&str] = &[
    "db:drop",
    "db:drop:all",
    "db:reset",
    "db:purge",
    "db:purge:all",
    "db:migrate:reset",
    "db:schema:load",
    "db:truncate_all",
    "db:wipe",
    "migrate:fresh",
    "migrate:reset",
    "migrate:refresh",
    "ecto.drop",
    "ecto.reset",
    "schema:drop",
];

/// The tools that run [`RESET_TASKS`].
const TASK_RUNNERS: &[&str] = &[
    "rails",
    "rake",
    "artisan",
    "php",
    "mix",
    "sequelize",
    "sequelize-cli",
    "typeorm",
    "yarn",
    "pnpm",
    "npm",
];

/// A framework's command that drops or empties the database it is configured for (which may
/// well not be a throwaway one): `rails db:drop`, `prisma migrate reset`, `manage.py flush`,
/// `php artisan migrate:fresh`, `dotnet ef database drop`, `supabase db reset`.
fn framework_reset(program: &str, args: &[Word]) -> Option<&'static str> {
    let words: Vec<&str> = args.iter().map(Word::text).collect();
    let has = |seq: &[&str]| words.windows(seq.len()).any(|w| w == seq);
    let resets = TASK_RUNNERS.contains(&program) && words.iter().any(|w| RESET_TASKS.contains(w))
        || (program == "prisma" || words.contains(&"prisma"))
            && (has(&["migrate", "reset"])
                || has(&["db", "push"]) && words.contains(&"--force-reset"))
        || (program == "django-admin" || words.iter().any(|w| w.ends_with("manage.py")))
            && words.iter().any(|w| matches!(*w, "flush" | "reset_db"))
        || program == "dotnet" && has(&["ef", "database", "drop"])
        || program == "supabase" && has(&["db", "reset"])
        || program == "alembic" && has(&["downgrade", "base"]);
    resets.then_some("drops or empties the database the project is configured for")
}

/// `docker …`: volumes, every container or image at once, `system prune -a`, `compose down -v`.
fn docker(args: &[Word], from_stdin: bool) -> Option<&'static str> {
    let (command, rest) = verb(args, DOCKER_VALUES)?;
    let (command, rest) = match command {
        "container" | "image" | "volume" | "system" | "builder" => {
            let (sub, rest) = verb(rest, &[])?;
            (format!("{command} {sub}"), rest)
        }
        "compose" => return compose(rest),
        "exec" => return in_container(rest),
        _ => (command.to_string(), rest),
    };
    let parsed = split(rest, &["--filter"]);
    let all = parsed.has("--all", Some('a'));
    // `docker rm -f $(docker ps -aq)` and `… | xargs docker rmi`: every container or image.
    let unknown_targets = from_stdin || parsed.operands.iter().any(|w| w.dynamic);
    match command.as_str() {
        "volume rm" | "volume remove" | "volume prune" => {
            Some("deletes Docker volumes and the data in them")
        }
        "system prune" if all || parsed.has("--volumes", None) => {
            Some("deletes every unused Docker image, container and network (and volume)")
        }
        "image prune" if all => Some("deletes every unused Docker image"),
        "rm" | "container rm" | "container remove" if parsed.has("--volumes", Some('v')) => {
            Some("deletes containers with their volumes")
        }
        "rm" | "container rm" | "container remove" if unknown_targets => {
            Some("deletes containers it cannot name (every container, as written)")
        }
        "rmi" | "image rm" | "image remove" if unknown_targets => {
            Some("deletes images it cannot name (every image, as written)")
        }
        _ => None,
    }
}

/// `docker exec [OPTIONS] CONTAINER COMMAND…`: the database tools of this module run inside the
/// container (`docker exec db psql -c 'DROP DATABASE app'`). Only this module's rules look in.
fn in_container(args: &[Word]) -> Option<&'static str> {
    let (_, command) = verb(args, EXEC_VALUES)?;
    let program = command.first().and_then(crate::argv::program)?;
    destroys(program, &command[1..], None, false)
}

/// `docker compose … down -v` / `--rmi`: the project's volumes or images go too; `exec` runs
/// a command in a service's container.
fn compose(args: &[Word]) -> Option<&'static str> {
    let (command, rest) = verb(args, COMPOSE_VALUES)?;
    if command == "exec" {
        return in_container(rest);
    }
    let parsed = split(rest, &["--rmi", "-t", "--timeout"]);
    (command == "down"
        && (parsed.has("--volumes", Some('v')) || parsed.value_of(&["--rmi"]).is_some()))
    .then_some("deletes the Compose project's volumes (or images)")
}

/// Whether SQL `text` drops a database, schema or table, truncates one, or deletes every row
/// (`DELETE FROM t` without `WHERE`).
fn destructive_sql(text: &str) -> bool {
    text.split(';').any(|statement| {
        let upper = statement.to_ascii_uppercase();
        let words: Vec<&str> = upper
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        words.windows(2).any(|pair| {
            (pair[0] == "DROP" && DROPPED_CONTAINERS.contains(&pair[1]))
                || (pair[0] == "DELETE" && pair[1] == "FROM" && !words.contains(&"WHERE"))
        }) || (words.contains(&"TRUNCATE") && words.len() > 1)
    })
}

/// Reports a command that destroys infrastructure or data (see the module doc).
pub(super) fn command(site: &Site<'_>, program: &str, report: &mut Report) {
    let stdin = fanout::stdin_text(site);
    let from_stdin = site.invocation.args_from_stdin;
    if let Some(what) = destroys(program, site.args(), stdin.as_deref(), from_stdin) {
        site.find(
            report,
            Rule::InfraDestroy,
            format!(
                "{} {what}, outside the project, where git cannot bring it back.",
                site.quoted()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::synthetic_words as words;

    #[test]
    fn destructive_sql_is_told_from_queries() {
        for sql in [
            "DROP DATABASE app",
            "drop table if exists users",
            "BEGIN; TRUNCATE events; COMMIT",
            "DELETE FROM sessions",
            "drop schema public cascade",
        ] {
            assert!(destructive_sql(sql), "{sql}");
        }
        for sql in [
            "SELECT 1",
            "DELETE FROM sessions WHERE expires < now()",
            "CREATE TABLE t (id int)",
            "\\dt",
            "app_dev",
        ] {
            assert!(!destructive_sql(sql), "{sql}");
        }
    }

    #[test]
    fn docker_commands_that_name_what_they_remove_are_not_flagged() {
        let judged = |command: &str| docker(&words(command), false).is_some();
        assert!(judged("system prune -af"));
        assert!(judged("volume prune -f"));
        assert!(judged("compose -f dev.yml down -v"));
        assert!(!judged("system prune -f"));
        assert!(!judged("rm -f web"));
        assert!(!judged("rmi myapp:dev"));
        assert!(!judged("compose down"));
        assert!(!judged("ps -aq"));
    }
}
