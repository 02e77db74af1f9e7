//! Demo data for a fresh install (only when the database has no users and `SEED_DEMO` is on), and
//! the `create-admin` command.

use std::collections::BTreeMap;

use chrono::Datelike;

use crate::auth::{Role, password};
use crate::db::{self, clients, users};
use crate::state::AppState;

/// The six levers of the product: (analysis code, name, category, description); migration
/// `0007_product_levers.sql` writes the same rows in every database.
pub const LEVERS: [(&str, &str, &str, &str); 6] = [
    (
        "pse",
        "Public Sector Entities (PSE)",
        "Assets",
        "Exposures to public sector entities treated as their central, regional or local government, or by the rating of the entity or its sovereign (CRR Art. 116).",
    ),
    (
        "rgla",
        "Regional Governments and Local Authorities (RGLA)",
        "Assets",
        "Exposures to regional governments and local authorities treated as exposures to their central government where eligible (CRR Art. 115).",
    ),
    (
        "mdb",
        "Multilateral Development Banks (MDB)",
        "Assets",
        "Exposures to multilateral development banks listed in CRR Art. 117(2) at 0 %, other MDBs by rating, and international organisations (Art. 118).",
    ),
    (
        "institutions",
        "Institutions",
        "Assets",
        "Exposures to credit institutions by rating, with the short-term treatment of CRR Art. 120 and 121.",
    ),
    (
        "corporates",
        "Corporates with Eligible Collateral",
        "CRMT",
        "Corporate exposures by rating (CRR Art. 122) with financial collateral under the simple method (Art. 222, 20 % floor).",
    ),
    (
        "sovereigns",
        "Sovereigns",
        "Assets",
        "Exposures to central governments and central banks, including the domestic-currency treatment of CRR Art. 114(4).",
    ),
];

/// Demo accounts: (email, name, last name, role, bank index or none for all).
const DEMO_USERS: [(&str, &str, &str, Role, Option<usize>); 6] = [
    ("admin@example.com", "Alicia", "Admin", Role::Admin, None),
    (
        "approver@example.com",
        "Pablo",
        "Approver",
        Role::Approver,
        Some(0),
    ),
    // Bank A's second approver: a user whose membership of Bank A carries the approver role
    // (the client-specific rule of `access::decide`), so two approvers can be tried side by side.
    (
        "approver2@example.com",
        "Paula",
        "Approver",
        Role::User,
        Some(0),
    ),
    ("user@bank-a.example", "Ana", "García", Role::User, Some(0)),
    ("user@bank-b.example", "Bruno", "López", Role::User, Some(1)),
    (
        "viewer@example.com",
        "Victor",
        "Viewer",
        Role::Viewer,
        Some(0),
    ),
];

/// The demo account that approves through its membership role rather than its global role.
pub const DEMO_CLIENT_APPROVER: &str = "approver2@example.com";

struct DemoBank {
    name: &'static str,
    description: &'static str,
    total_rwas: f64,
    cet1_capital: f64,
    /// Monthly RWA savings added per lever code.
    monthly: &'static [(&'static str, f64)],
}

const BANKS: [DemoBank; 2] = [
    DemoBank {
        name: "Bank A",
        description: "Spanish retail and commercial bank (demo data)",
        total_rwas: 48_200_000_000.0,
        cet1_capital: 6_530_000_000.0,
        monthly: &[
            ("pse", 9_500_000.0),
            ("rgla", 6_200_000.0),
            ("mdb", 2_100_000.0),
            ("corporates", 4_800_000.0),
        ],
    },
    DemoBank {
        name: "Bank B",
        description: "Spanish corporate and investment bank (demo data)",
        total_rwas: 21_750_000_000.0,
        cet1_capital: 3_045_000_000.0,
        monthly: &[
            ("pse", 3_900_000.0),
            ("institutions", 5_300_000.0),
            ("sovereigns", 1_700_000.0),
        ],
    },
];

/// Seeds demo data when the database has no users and seeding is on. Returns whether it seeded.
pub async fn seed_if_empty(state: &AppState) -> anyhow::Result<bool> {
    if !state.config.seed_demo || !state.db.is_empty().await? {
        return Ok(false);
    }
    let pw = state.config.demo_password.clone();
    if pw.is_empty() {
        anyhow::bail!("SEED_DEMO=1 needs DEMO_PASSWORD");
    }
    seed_demo(state, &pw).await?;
    println!("Demo data seeded. Sign in with any of these accounts (password: {pw}):");
    for (email, _, _, role, _) in DEMO_USERS {
        let role = if email == DEMO_CLIENT_APPROVER {
            "approver (Bank A's own)"
        } else {
            role.as_str()
        };
        println!("  {role:<9} {email}");
    }
    Ok(true)
}

/// Writes the demo data (levers, two banks with a year of savings, one account per role).
pub async fn seed_demo(state: &AppState, demo_password: &str) -> anyhow::Result<()> {
    let hash = password::hash(demo_password)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = db::now();
    let mut tx = state.db.begin_write().await?;
    let mut lever_ids = BTreeMap::new();
    // The levers come with the migrations (0007); one an administrator removed is put back.
    for (code, name, category, description) in LEVERS {
        let id = match crate::db::runs::lever_by_code(&mut *tx, code).await? {
            Some((id, _)) => id,
            None => {
                let id = clients::insert_lever(&mut *tx, Some(code), name, description, category)
                    .await?;
                // With the column definitions migration 0009 gives the six levers.
                let defs = crate::service::levers::default_definitions(
                    &id,
                    code,
                    analysis::model::Lever::parse(code),
                );
                crate::db::levers::insert_definitions(&mut tx, &defs, &now).await?;
                id
            }
        };
        lever_ids.insert(code, id);
    }
    let mut user_ids = Vec::new();
    for (email, name, last_name, role, bank) in DEMO_USERS {
        let company = bank.map(|b| BANKS[b].name);
        let id = users::insert(
            &mut *tx,
            &users::NewUser {
                email,
                password_hash: Some(&hash),
                name,
                last_name,
                role: role.as_str(),
                company,
                terms_accepted_at: Some(&now),
                password_changed_at: Some(&now),
            },
        )
        .await?;
        user_ids.push((id, email, role, bank));
    }
    let today = chrono::Utc::now().date_naive();
    for (bi, bank) in BANKS.iter().enumerate() {
        let client_id = crate::service::clients::create(
            &mut tx,
            &clients::NewClient {
                name: bank.name,
                description: bank.description,
                from_date: Some("2024-01-01"),
                created_by: user_ids.first().map(|u| u.0.as_str()),
                official_cet1_capital: Some(bank.cet1_capital),
                official_total_rwas: Some(bank.total_rwas),
                official_cet1_ratio: Some(bank.cet1_capital / bank.total_rwas),
            },
        )
        .await?;
        for (uid, email, role, ubank) in &user_ids {
            if *role == Role::Admin || *ubank == Some(bi) {
                users::add_to_client(&mut *tx, &client_id, uid, None).await?;
            }
            if *email == DEMO_CLIENT_APPROVER && *ubank == Some(bi) {
                users::set_member_role(&mut *tx, &client_id, uid, "approver").await?;
            }
        }
        // Twelve months ending with the current one, savings accumulating lever by lever.
        let figures = analysis::savings::BankFigures {
            total_rwas: bank.total_rwas,
            cet1_capital: bank.cet1_capital,
            reported_ratio: None,
        };
        let mut previous = 0.0;
        let (mut last_rwas, mut last_bps) = (0.0, 0.0);
        for k in 0..12u32 {
            let months_back = 11 - k;
            let total_months = today.year() * 12 + today.month0() as i32 - months_back as i32;
            let (year, month) = (total_months.div_euclid(12), total_months.rem_euclid(12) + 1);
            let mut breakdown = serde_json::Map::new();
            let mut total = 0.0;
            for (li, (code, per_month)) in bank.monthly.iter().enumerate() {
                // Levers start in successive months, so the history shows levers being added.
                let active = (k as i64 + 1 - li as i64 * 2).max(0) as f64;
                let value = (per_month * active).round();
                if value > 0.0 {
                    breakdown.insert(lever_ids[code].clone(), serde_json::json!(value));
                }
                total += value;
            }
            let bps = analysis::savings::bps_exact(&figures, total)?;
            let growth = if previous > 0.0 {
                (total - previous) / previous * 100.0
            } else {
                0.0
            };
            clients::upsert_savings(
                &mut tx,
                &clients::SavingsRow {
                    client_id: client_id.clone(),
                    year: year as i64,
                    month: month as i64,
                    total_rwas: total,
                    total_bps: bps,
                    monthly_growth_rate: growth,
                    lever_breakdown: serde_json::Value::Object(breakdown).to_string(),
                },
            )
            .await?;
            previous = total;
            (last_rwas, last_bps) = (total, bps);
        }
        clients::set_savings(&mut *tx, &client_id, last_rwas, last_bps).await?;
        // The demo's savings have no files behind them: they stand as the figure an administrator
        // typed, so the savings sync keeps them until the client's files have savings.
        crate::db::admin_clients::set_manual_savings(&mut *tx, &client_id, Some(last_rwas)).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Creates an admin (or promotes and re-passwords an existing account), member of every client.
pub async fn create_admin(
    state: &AppState,
    email: &str,
    name: &str,
    last_name: &str,
    pw: &str,
) -> anyhow::Result<()> {
    let email = email.trim().to_lowercase();
    if !crate::api::valid_email(&email) {
        anyhow::bail!("Invalid email address");
    }
    password::check_strong(pw).map_err(|e| anyhow::anyhow!("{e}"))?;
    let hash = password::hash(pw)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = db::now();
    let mut tx = state.db.begin_write().await?;
    let id = match users::by_email(&mut *tx, &email).await? {
        Some(u) => {
            users::set_role(&mut *tx, &u.id, Role::Admin.as_str()).await?;
            users::set_password(&mut *tx, &u.id, &hash).await?;
            u.id
        }
        None => {
            users::insert(
                &mut *tx,
                &users::NewUser {
                    email: &email,
                    password_hash: Some(&hash),
                    name,
                    last_name,
                    role: "admin",
                    company: None,
                    terms_accepted_at: None,
                    password_changed_at: Some(&now),
                },
            )
            .await?
        }
    };
    for c in clients::list(&mut *tx).await? {
        users::add_to_client(&mut *tx, &c.id, &id, None).await?;
    }
    tx.commit().await?;
    Ok(())
}
