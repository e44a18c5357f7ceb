//! `countersign people …`: the people of a team console (decision 0034), invited, listed and
//! removed, and the team's policy, kept in the database itself (the data directory's, or
//! `--database`), beside a running console or without one. Whoever can run these on the
//! console's database is the team's admin.

use std::process::ExitCode;

use clap::Subcommand;
use serde_json::json;

use super::agents::{token_console, when};
use super::{CliError, TokenDatabase, print_json};
use countersign_domain::people::Role;
use countersign_engine::console::{Console, Invitation, PersonInfo};
use countersign_engine::data_dir::DataDir;

/// `countersign people …`.
#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// Invite a person: their invitation is printed this once, taken once within 72 hours
    /// on the team's page, where they make their passkey.
    Invite {
        /// Their name on the team, as every decision they make will show it.
        name: String,
        /// approver: reads and decides; viewer: reads only.
        #[arg(long, value_parser = role)]
        role: Role,
        /// The team's page (`https://console.example.com:8443`), to print the invitation as
        /// the link the person opens.
        #[arg(long, value_name = "URL")]
        page: Option<String>,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// A new invitation for someone who has not joined; the one before is void.
    Reinvite {
        name: String,
        #[arg(long, value_name = "URL")]
        page: Option<String>,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// Everyone on the team, present first.
    List {
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// Remove a person: they are signed out and decide nothing from now on; their past
    /// decisions keep their name.
    Remove {
        name: String,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// The team's policy: shown, or changed by the options given.
    Policy {
        /// The person an agent token belongs to cannot decide that token's calls.
        #[arg(long, value_name = "on|off", value_parser = on_off)]
        prevent_self_review: Option<bool>,
        /// A project (as agent tokens are made for, `*` for every call) whose calls wait for
        /// two people's approvals; may be given more than once.
        #[arg(long, value_name = "PROJECT")]
        two_approvals: Vec<String>,
        /// A project whose calls need one approval again.
        #[arg(long, value_name = "PROJECT")]
        one_approval: Vec<String>,
        #[command(flatten)]
        on: TokenDatabase,
    },
}

fn role(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| "approver or viewer".to_owned())
}

fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err("on or off".to_owned()),
    }
}

pub async fn run(dir: &DataDir, cmd: PeopleCommand) -> Result<ExitCode, CliError> {
    let on = match &cmd {
        PeopleCommand::Invite { on, .. }
        | PeopleCommand::Reinvite { on, .. }
        | PeopleCommand::List { on }
        | PeopleCommand::Remove { on, .. }
        | PeopleCommand::Policy { on, .. } => on,
    };
    let console = token_console(dir, on.on.database.as_deref()).await?;
    let result = act(&console, cmd).await;
    console.close();
    console.store().close().await;
    result
}

fn shown(p: &PersonInfo) -> String {
    let state = match (p.removed_at, p.joined_at, p.invite_until) {
        (Some(at), _, _) => format!("removed {}", when(at)),
        (None, Some(at), _) => format!("joined {}", when(at)),
        (None, None, Some(until)) => format!("invited, until {}", when(until)),
        (None, None, None) => "invited".to_owned(),
    };
    format!(
        "{}  {}  {}, {state}",
        p.id,
        countersign_domain::verbatim::reveal(&p.name),
        p.role.as_str()
    )
}

fn invitation(made: &Invitation, page: Option<&str>, json: bool) -> Result<(), CliError> {
    let link = page
        .map(|p| {
            let p = p.trim_end_matches('/');
            if !p.starts_with("https://") {
                return Err(CliError::Usage(format!(
                    "--page {p}: the team's page is served over https://"
                )));
            }
            Ok(format!("{p}/#invite={}", made.code))
        })
        .transpose()?;
    if json {
        print_json(&json!({ "person": made.person, "invitation": made.code, "link": link }));
        return Ok(());
    }
    println!("{}", shown(&made.person));
    println!();
    println!("{}", link.as_deref().unwrap_or(&made.code));
    println!();
    println!(
        "This invitation is shown once, and is taken once within 72 hours: {} opens it on \
         the team's page and makes a passkey there. Give it to them yourself, as you would a \
         password.",
        countersign_domain::verbatim::reveal(&made.person.name)
    );
    Ok(())
}

async fn act(console: &Console, cmd: PeopleCommand) -> Result<ExitCode, CliError> {
    match cmd {
        PeopleCommand::Invite {
            name,
            role,
            page,
            on,
        } => {
            let made = console.invite_person(&name, role).await?;
            invitation(&made, page.as_deref(), on.json)?;
        }
        PeopleCommand::Reinvite { name, page, on } => {
            let made = console.reinvite_person(&name).await?;
            invitation(&made, page.as_deref(), on.json)?;
        }
        PeopleCommand::List { on } => {
            let all = console.people().await?;
            if on.json {
                print_json(&json!({ "people": all }));
            } else if all.is_empty() {
                println!(
                    "No one yet: `countersign people invite <name> --role approver` invites someone."
                );
            } else {
                for p in &all {
                    println!("{}", shown(p));
                }
            }
        }
        PeopleCommand::Remove { name, on } => {
            let removed = console.remove_person(&name).await?;
            if on.json {
                print_json(&json!({ "person": removed }));
            } else {
                println!("{}", shown(&removed));
            }
        }
        PeopleCommand::Policy {
            prevent_self_review,
            two_approvals,
            one_approval,
            on,
        } => {
            if let Some(flag) = prevent_self_review {
                console.set_prevent_self_review(flag).await?;
            }
            for p in &two_approvals {
                console.set_two_approvals(p, true).await?;
            }
            for p in &one_approval {
                console.set_two_approvals(p, false).await?;
            }
            let policy = console.team_policy().await?;
            if on.json {
                print_json(&json!({ "policy": policy }));
            } else {
                println!(
                    "prevent self-review: {}",
                    if policy.prevent_self_review {
                        "on"
                    } else {
                        "off"
                    }
                );
                if policy.two_approvals.is_empty() {
                    println!("two approvals: for no project");
                } else {
                    println!("two approvals: {}", policy.two_approvals.join(", "));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
