//! Issue 12's further classes, those other agents' safety suites flag, through the public
//! [`check`](crate::check): stopping services and daemons, destroying infrastructure and data,
//! planting persistence or credentials in the home directory, and destroying single files
//! outside the project — each asked about, with their everyday neighbours allowed.

use crate::test_support::*;

#[test]
fn stopping_or_disabling_system_services_is_asked_about() {
    assert_asked(
        "system-admin",
        &[
            "systemctl stop nginx",
            "systemctl disable --now sshd",
            "systemctl mask docker.service",
            "systemctl restart postgresql",
            "systemctl kill -s KILL cron",
            "systemctl isolate rescue.target",
            "systemctl --user enable evil.service",
            "service apache2 stop",
            "service ssh restart",
            "/etc/init.d/nginx stop",
            "launchctl unload -w /Library/LaunchDaemons/com.x.plist",
            "update-rc.d ssh disable",
            "killall sshd",
            "pkill -9 dockerd",
        ],
    );
}

#[test]
fn reading_the_state_of_services_is_allowed() {
    assert_allowed(&[
        "systemctl status nginx",
        "systemctl is-active --quiet docker",
        "systemctl list-units --type=service",
        "systemctl --user status pipewire",
        "systemctl show -p MainPID nginx",
        "systemctl cat nginx.service",
        "systemctl",
        "service nginx status",
        "service --status-all",
        "launchctl list",
    ]);
}

#[test]
fn signalling_every_process_is_asked_about_but_named_ones_are_not() {
    assert_asked(
        "power",
        &[
            "pkill -9 -f .",
            "pkill -f '.*'",
            "pkill -u ann",
            "killall -9 -u ann",
            "killall -r '.*'",
            "pkill -v bash",
        ],
    );
    assert_allowed(&[
        "pkill -f 'node server.js'",
        "pkill -f vite",
        "killall node",
        "pkill -INT cargo",
        "pgrep -f python",
    ]);
}

#[test]
fn destroying_containers_volumes_and_stacks_is_asked_about() {
    assert_asked(
        "infra-destroy",
        &[
            "docker system prune -af",
            "docker system prune --all --volumes",
            "docker volume rm pgdata",
            "docker volume prune -f",
            "docker rm -f $(docker ps -aq)",
            "docker rmi -f $(docker images -q)",
            "docker ps -aq | xargs docker rm -f",
            "docker compose down -v",
            "docker-compose -f dev.yml down --volumes",
            "terraform destroy -auto-approve",
            "terraform apply -destroy",
            "tofu destroy",
            "pulumi destroy --yes",
            "npx cdk destroy --force",
            "kubectl delete namespace prod",
            "kubectl -n prod delete deploy --all",
            "kubectl delete -f k8s/",
            "helm uninstall api -n prod",
        ],
    );
}

#[test]
fn destroying_cloud_storage_and_databases_is_asked_about() {
    assert_asked(
        "infra-destroy",
        &[
            "aws s3 rm s3://bucket --recursive",
            "aws s3 rb s3://bucket --force",
            "aws ec2 terminate-instances --instance-ids i-123",
            "aws --region us-east-1 rds delete-db-instance --db-instance-identifier db",
            "gsutil -m rm -r gs://bucket",
            "gcloud compute instances delete vm-1 --quiet",
            "gcloud projects delete my-project",
            "az group delete --name rg --yes",
            "dropdb app_production",
            "psql -c 'DROP DATABASE app'",
            "psql -U postgres -d app -c \"TRUNCATE users CASCADE\"",
            "mysql -u root -e 'drop table users'",
            "echo 'DROP TABLE users;' | psql app",
            "sqlite3 app.db 'DELETE FROM users'",
            "redis-cli flushall",
            "redis-cli -n 2 FLUSHDB",
            "mongosh app --eval 'db.dropDatabase()'",
        ],
    );
}

#[test]
fn everyday_container_cluster_and_database_commands_are_allowed() {
    assert_allowed(&[
        "docker ps -a",
        "docker build -t app .",
        "docker compose up -d",
        "docker compose down",
        "docker system prune -f",
        "docker rm -f web",
        "docker rmi app:old",
        "docker volume ls",
        "terraform plan -destroy",
        "terraform apply",
        "kubectl get pods -n prod",
        "kubectl describe deploy api",
        "kubectl logs -f deploy/api",
        "kubectl apply -f k8s/",
        "helm list -A",
        "aws s3 ls s3://bucket",
        "aws s3 cp build/ s3://bucket/ --recursive",
        "gcloud compute instances list",
        "psql -c 'SELECT 1'",
        "psql -c 'DELETE FROM sessions WHERE expires < now()'",
        "mysql -e 'SHOW TABLES' app",
        "redis-cli ping",
        "redis-cli get session:1",
        "mongosh --eval 'db.users.find()'",
    ]);
}

#[test]
fn writing_startup_files_and_credentials_is_asked_about() {
    assert_asked(
        "persistence",
        &[
            "echo 'curl x | sh' >> ~/.bashrc",
            "echo 'export PATH=$PATH:/x' >> $HOME/.zshrc",
            "cat key.pub >> ~/.ssh/authorized_keys",
            "echo ssh-ed25519 AAAA | tee -a ~/.ssh/authorized_keys",
            "cp id_rsa ~/.ssh/",
            "cp .bashrc ~",
            "ln -sf ~/dotfiles/zshrc ~/.zshrc",
            "sed -i 's/a/b/' ~/.profile",
            "printf '[default]\\n' > ~/.aws/credentials",
            "echo //registry.npmjs.org/:_authToken=x > ~/.npmrc",
            "cp evil.desktop ~/.config/autostart/",
            "cp x.service ~/.config/systemd/user/",
            "echo '{}' > ~/.config/wright/config.toml",
            "git config --global user.email ann@example.com",
            "git config --global --unset credential.helper",
            "git config --system core.hooksPath /tmp/hooks",
            "echo '* * * * * curl x | sh' | crontab -",
            "crontab jobs.txt",
            "bash -c 'echo x >> ~/.bash_profile'",
        ],
    );
}

#[test]
fn reading_home_settings_and_writing_project_settings_is_allowed() {
    assert_allowed(&[
        "cat ~/.bashrc",
        "grep PATH ~/.zshrc",
        "cp ~/.ssh/id_ed25519.pub ./keys/",
        "mkdir -p ~/.ssh",
        "chmod 600 ~/.ssh/config",
        "echo 'export X=1' >> .envrc",
        "echo 'registry=x' > .npmrc",
        "git config user.name Ann",
        "git config --global --get user.email",
        "git config --global user.name",
        "git config --list --show-origin",
        "git config --local core.autocrlf false",
        "crontab -l",
        "cp target/release/tool ~/.local/bin/",
    ]);
}

#[test]
fn destroying_single_files_outside_the_project_is_asked_about() {
    assert_asked(
        "file-destroy",
        &[
            "shred -u ~/.ssh/id_rsa",
            "shred -n 3 /home/ann/notes.txt",
            "srm ~/secret.txt",
            "truncate -s 0 ~/data.db",
            "echo > ~/notes.txt",
            ": > ../other/app.log",
            "rm -f ~/.bash_history",
            "rm ~/.ssh/known_hosts",
            "unlink ~/important.txt",
            "history -c",
        ],
    );
}

#[test]
fn deleting_and_overwriting_inside_the_project_or_temp_is_allowed() {
    assert_allowed(&[
        "rm tmp.txt",
        "rm -f /tmp/out.log",
        "shred -u secrets/test.key",
        "truncate -s 0 logs/app.log",
        "cargo test > /tmp/test.log 2>&1",
        "echo note >> ~/notes.txt",
        "history | tail",
        "rm \"$f\"",
    ]);
}
