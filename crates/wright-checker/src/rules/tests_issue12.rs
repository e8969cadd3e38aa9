//! Issue 12's dangerous-command items, through the public [`check`](crate::check): discarding
//! local git work, whole-tree deletes fed to `xargs`, root-level administration, deletes in the
//! temporary directory, and delete targets reached through symlinks.

use pretty_assertions::assert_eq;

use crate::test_support::*;
use crate::{CommandPolicy, Decision, check};

#[test]
fn discarding_uncommitted_changes_is_asked_about() {
    assert_judged(
        Decision::Ask,
        "discard-git-work",
        &[
            "git reset --hard",
            "git reset --hard HEAD~3",
            "git reset -q --hard origin/main",
            "git reset --merge ORIG_HEAD",
            // Issue 12: a bare reset naming paths loses what was staged for them.
            "git reset HEAD file.txt",
            "git reset -- src/main.rs",
            "git reset src/main.rs",
            "git checkout -- src/main.rs",
            "git checkout .",
            "git checkout HEAD~1 src/lib.rs",
            "git checkout main -- .",
            "git checkout src/main.rs",
            "git checkout -f main",
            "git checkout --force feature",
            "git switch -f main",
            "git switch --discard-changes main",
            "git restore .",
            "git restore src/lib.rs",
            "git restore --worktree --staged .",
            "git restore -SW src",
            "git restore --source=HEAD~2 Cargo.toml",
        ],
    );
}

#[test]
fn deleting_untracked_files_stashes_branches_and_worktrees_is_asked_about() {
    assert_judged(
        Decision::Ask,
        "discard-git-work",
        &[
            "git clean -f",
            "git clean -fd",
            "git clean -fdx",
            "git clean -xdf",
            "git clean --force -d",
            "git stash drop",
            "git stash drop stash@{1}",
            "git stash clear",
            "git branch -D old-feature",
            "git branch -d merged",
            "git branch --delete --force x",
            "git worktree remove --force ../wt",
            "git worktree remove -f ../wt",
            "git push origin --delete feature-x",
            "git push origin :feature-x",
            "git push -d origin old",
            "git reflog expire --expire=now --all",
            "git gc --prune=now",
            "git update-ref -d refs/heads/x",
            "git filter-branch --tree-filter 'rm -f secrets' HEAD",
            "git rm -rf src",
        ],
    );
}

#[test]
fn discarding_git_work_is_found_through_wrappers_and_git_options() {
    assert_judged(
        Decision::Ask,
        "discard-git-work",
        &[
            "bash -c 'git reset --hard'",
            "sh -c \"git clean -fdx\"",
            "env GIT_DIR=.git git reset --hard",
            "command git checkout -- .",
            "nohup git clean -fd &",
            "time git reset --hard",
            "echo $(git stash clear)",
            "/usr/bin/git reset --hard",
            "git -C ../other reset --hard",
            "git -c core.pager=cat reset --hard",
            "git --git-dir=.git --work-tree=. clean -fd",
            "git --no-pager checkout -- .",
            "cd src && git restore .",
            "bash <<'END'\nset -e\ngit reset --hard origin/main\nEND",
            "xargs git branch -D < branches.txt",
        ],
    );
}

#[test]
fn everyday_git_that_keeps_local_work_is_allowed() {
    assert_allowed(&[
        "git status",
        "git diff",
        "git log --oneline -5",
        "git reset",
        "git reset --soft HEAD~1",
        "git reset --mixed HEAD~1",
        "git reset --keep HEAD~1",
        "git checkout main",
        "git checkout -",
        "git checkout -b new-feature",
        "git checkout -b fix origin/main",
        "git checkout -B topic",
        "git checkout v1.2.0",
        "git checkout feature/login",
        "git switch main",
        "git switch -c topic",
        "git restore --staged src/lib.rs",
        "git restore -S .",
        "git stash",
        "git stash pop",
        "git stash list",
        "git stash show -p stash@{0}",
        "git branch -a",
        "git branch -M main",
        "git branch --show-current",
        "git clean -n",
        "git clean -nd",
        "git clean --dry-run -fdx",
        "git worktree remove ../wt",
        "git worktree add ../wt -b topic",
        "git rm --cached -r node_modules",
        "git rm old.txt",
        "git gc",
        "git reflog",
        "git push origin feature-x",
    ]);
}

#[test]
fn a_git_alias_given_with_c_is_checked_as_a_command() {
    assert_judged(
        Decision::Refuse,
        "catastrophic-delete",
        &["git -c 'alias.x=!rm -rf ~' x"],
    );
}

#[test]
fn a_lease_guarded_force_push_to_an_unprotected_branch_is_allowed() {
    assert_allowed(&[
        "git push --force-with-lease origin my-branch",
        "git push --force-with-lease --force-if-includes origin my-branch",
        "git push --force-with-lease=my-branch:abc123 origin my-branch",
        "git push --force-if-includes origin main",
    ]);
    assert_judged(
        Decision::Ask,
        "force-push",
        &[
            "git push --force-with-lease origin main",
            "git push --force-with-lease --force-if-includes origin master",
        ],
    );
}

#[test]
fn a_listing_of_the_whole_project_fed_to_xargs_rm_is_a_whole_project_delete() {
    assert_judged(
        Decision::Ask,
        "recursive-delete",
        &[
            "find . -print0 | xargs -0 rm -rf",
            "find . | xargs rm -rf",
            "find | xargs rm -rf",
            "find . -type f | xargs rm -rf",
            "find . -mindepth 1 -print0 | xargs -0 rm -rf --",
            "find \"$PWD\" | xargs rm -rf",
            "cd src && find .. | xargs rm -rf",
            "ls | xargs rm -rf",
            "ls -A | xargs -n1 rm -rf",
            "find . -delete",
        ],
    );
}

#[test]
fn a_narrowed_listing_fed_to_xargs_rm_stays_allowed() {
    assert_allowed(&[
        "find . -name '*.o' -print0 | xargs -0 rm -rf",
        "find . -type d -name __pycache__ | xargs rm -rf",
        "find target -print0 | xargs -0 rm -rf",
        "ls *.log | xargs rm -rf",
        "git ls-files --others --exclude-standard | xargs rm -rf",
    ]);
}

#[test]
fn words_of_an_exec_command_are_not_find_primaries() {
    assert_allowed(&[
        "find . -exec echo -delete \\;",
        "find . -type f -exec grep -l -delete {} +",
        "find . -execdir printf '%s -delete\\n' {} \\;",
    ]);
    assert_judged(
        Decision::Ask,
        "recursive-delete",
        &[
            "find . -exec echo {} \\; -delete",
            "find . -exec rm -rf {} +",
        ],
    );
}

#[test]
fn deleting_inside_the_temporary_directory_is_allowed() {
    assert_allowed(&[
        "rm -rf /tmp/build-xyz",
        "rm -rf /tmp/foo/*",
        "rm -rf /tmp/wright-test.*",
        "rm -rf \"$TMPDIR\"/foo",
        "rm -rf ${TMPDIR}/cache",
        "rm -rf \"$TMPDIR/x\"",
        "d=$(mktemp -d); cargo build --target-dir \"$d\"; rm -rf \"$d\"",
        "tmp=$(mktemp -d -t wright.XXXXXX) && rm -rf \"$tmp\"",
        "cd /tmp && rm -rf build-1",
        "find /tmp/out -name '*.o' -delete",
        "chmod -R u+w /tmp/unpacked",
        "rm -rf /private/tmp/x",
    ]);
}

#[test]
fn the_temporary_directory_itself_or_all_of_it_is_still_asked_about() {
    assert_judged(
        Decision::Ask,
        "recursive-delete",
        &[
            "rm -rf /tmp",
            "rm -rf /tmp/*",
            "rm -rf /tmp/",
            "rm -rf \"$TMPDIR\"",
            "rm -rf \"$TMPDIR\"/*",
            "rm -rf /var/tmp/x",
            "d=$(mktemp -d -p /opt); rm -rf \"$d\"",
            "export TMPDIR=/opt; rm -rf \"$TMPDIR\"/data",
            "TMPDIR=$X bash -c 'rm -rf $TMPDIR/data'",
        ],
    );
    assert_judged(
        Decision::Refuse,
        "catastrophic-delete",
        &["rm -rf /tmp/../etc", "TMPDIR=/ ; rm -rf $TMPDIR/etc"],
    );
}

#[test]
fn administering_the_machine_is_asked_about() {
    assert_judged(
        Decision::Ask,
        "system-admin",
        &[
            "iptables -F",
            "iptables -X",
            "iptables -P INPUT DROP",
            "/usr/sbin/iptables -t nat -F",
            "nft flush ruleset",
            "insmod ./rootkit.ko",
            "rmmod e1000",
            "modprobe -r nvidia",
            "userdel -r ann",
            "useradd -m eve",
            "passwd root",
            "echo 'root:x' | chpasswd",
            "sysctl -w kernel.randomize_va_space=0",
            "mount -o remount,rw /",
            "umount /mnt/data",
            "swapoff -a",
            "bash -c 'iptables -F'",
        ],
    );
}

#[test]
fn changing_system_files_is_asked_about_even_without_recursion() {
    assert_judged(
        Decision::Ask,
        "system-write",
        &[
            "chown nobody /etc/shadow",
            "chmod 777 /etc/passwd",
            "chmod 644 /usr/bin/sudo",
            "rm /var/log/auth.log",
            "rm -f /etc/hosts",
            "rm /boot/vmlinuz",
            "rm /usr/bin/python3",
            "truncate -s 0 /var/log/syslog",
        ],
    );
}

#[test]
fn reading_the_machine_configuration_is_allowed() {
    assert_allowed(&[
        "iptables -L -n",
        "nft list ruleset",
        "lsmod",
        "modinfo e1000",
        "sysctl -a",
        "sysctl net.ipv4.ip_forward",
        "mount",
        "findmnt",
        "swapon --show",
        "id -u",
        "getent passwd ann",
        "cat /var/log/syslog",
        "tail -f /var/log/nginx/error.log",
        "crontab -l",
        "chmod +x scripts/build.sh",
    ]);
}

/// A project at `<tmp>/home/ann/proj` with symlinks out of it: `out` to `<tmp>/home/ann/other`,
/// `homelink` to the home directory, `usrlink` to `/usr`, `inner` to `proj/build`.
struct Linked {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    home: std::path::PathBuf,
}

fn linked() -> Linked {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap().join("home/ann");
    let root = home.join("proj");
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::create_dir_all(home.join("other")).unwrap();
    std::os::unix::fs::symlink(home.join("other"), root.join("out")).unwrap();
    std::os::unix::fs::symlink(&home, root.join("homelink")).unwrap();
    std::os::unix::fs::symlink("/usr", root.join("usrlink")).unwrap();
    std::os::unix::fs::symlink(root.join("build"), root.join("inner")).unwrap();
    Linked {
        _dir: dir,
        root,
        home,
    }
}

fn judged_in(project: &Linked, command: &str) -> (Decision, &'static str) {
    let verdict = check(
        command,
        &project.root,
        Some(&project.home),
        &CommandPolicy::default(),
    );
    (verdict.decision, verdict.rule)
}

#[test]
fn a_delete_through_a_symlink_is_judged_where_the_link_leads() {
    let project = linked();
    for command in [
        "rm -rf out/",
        "rm -rf out/*",
        "rm -rf out/.",
        "rm -rf out/sub",
        "find out/ -delete",
        "cd out && rm -rf *",
    ] {
        assert_eq!(
            judged_in(&project, command),
            (Decision::Ask, "recursive-delete"),
            "{command}"
        );
    }
    for command in ["rm -rf homelink/", "rm -rf homelink/*", "rm -rf usrlink/"] {
        assert_eq!(
            judged_in(&project, command),
            (Decision::Refuse, "catastrophic-delete"),
            "{command}"
        );
    }
}

#[test]
fn removing_the_link_itself_or_a_link_inside_the_project_is_allowed() {
    let project = linked();
    for command in [
        "rm -rf out",
        "rm -rf homelink",
        "rm -f usrlink",
        "rm -rf inner/",
        "rm -rf inner/*",
        "rm -rf build/",
        "rm -rf missing/dir/",
    ] {
        assert_eq!(
            judged_in(&project, command),
            (Decision::Allow, "none"),
            "{command}"
        );
    }
}
