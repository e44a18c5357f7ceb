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
        /// The team's page as people reach it (`https://console.example.com:8443`, as `serve`
        /// prints it): the invitation is printed as the link the person opens there.
        #[arg(long, value_name = "URL")]
        page: String,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// A new invitation, the one before void: for someone who has not joined yet, or who lost
    /// their passkey (it and their sign-ins end now; they join again with the new one).
    Reinvite {
        name: String,
        #[arg(long, value_name = "URL")]
        page: String,
        #[command(flatten)]
        on: TokenDatabase,
    },
    /// Change a person's role, from their next decision on.
    Role {
        name: String,
        #[arg(long, value_parser = role)]
        role: Role,
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
        | PeopleCommand::Role { on, .. }
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

/// The team's page as `--page` names it: an `https://` address with nothing after its host
/// and port.
fn page_url(page: &str) -> Result<String, CliError> {
    let p = page.trim_end_matches('/');
    let host = p.strip_prefix("https://").unwrap_or_default();
    if host.is_empty() || host.contains(['/', '?', '#', '@']) {
        return Err(CliError::Usage(format!(
            "--page {page}: the team's page as people reach it, https://<name>:<port> as \
             serve prints it"
        )));
    }
    Ok(p.to_owned())
}

fn invitation(made: &Invitation, page: &str, json: bool) -> Result<(), CliError> {
    let link = format!("{page}/#invite={}", made.code);
    if json {
        print_json(&json!({ "person": made.person, "invitation": made.code, "link": link }));
        return Ok(());
    }
    println!("{}", shown(&made.person));
    println!();
    println!("{link}");
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
            let page = page_url(&page)?;
            let made = console.invite_person(&name, role).await?;
            invitation(&made, &page, on.json)?;
        }
        PeopleCommand::Reinvite { name, page, on } => {
            let page = page_url(&page)?;
            let made = console.reinvite_person(&name).await?;
            invitation(&made, &page, on.json)?;
        }
        PeopleCommand::Role { name, role, on } => {
            let changed = console.set_person_role(&name, role).await?;
            if on.json {
                print_json(&json!({ "person": changed }));
            } else {
                println!("{}", shown(&changed));
            }
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
            let (removed, revoked) = console.remove_person(&name).await?;
            if on.json {
                print_json(&json!({ "person": removed, "revoked_agent_tokens": revoked }));
            } else {
                println!("{}", shown(&removed));
                for t in &revoked {
                    println!("agent token {t} made for them: revoked, its waiting calls withdrawn");
                }
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
            let tokens = console.agent_tokens().await?;
            let unused: Vec<&String> = two_approvals
                .iter()
                .filter(|p| p.as_str() != countersign_domain::people::EVERY_PROJECT)
                .filter(|p| {
                    !tokens
                        .iter()
                        .any(|t| t.revoked_at.is_none() && t.project.as_deref() == Some(p.trim()))
                })
                .collect();
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
                for p in unused {
                    println!(
                        "note: no live agent token counts as project {p} yet: its calls are the \
                         ones of tokens made with --project {p} (what an agent says of its folder \
                         counts for nothing)"
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
