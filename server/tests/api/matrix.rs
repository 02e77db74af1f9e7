//! The authorization matrix: every route the API serves (read from the OpenAPI description the
//! router itself produces) has a rule in [`ROUTES`]; each route is called by every persona with
//! real ids of Bank A's rows, and the status must be the one its rule gives. A denied call must
//! return nothing of Bank A and change nothing of it. A route served without a rule here fails
//! [`every_served_route_has_a_rule`].

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Anyone, signed in or not: the same status for everybody.
    Anyone,
    /// Any signed-in user; anonymous callers get 401.
    SignedIn,
    /// Members of the client (viewers included) and admins; other clients' users get 404.
    ClientRead,
    /// Members of the client who are not viewers (403), and admins; other clients' users get 404.
    ClientWrite,
    /// Approvers of the client (global or client role) and admins; other members get 403.
    Approver,
    /// Admins only; other signed-in users get 403.
    Admin,
}

/// The callers every route is tried with. Bank A is the client whose rows the routes name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Persona {
    Anonymous,
    /// Viewer of Bank A.
    Viewer,
    /// User of Bank A.
    Member,
    /// User of Bank B.
    OtherClient,
    /// Approver of Bank A.
    Approver,
    Admin,
}

const PERSONAS: [Persona; 6] = [
    Persona::Anonymous,
    Persona::Viewer,
    Persona::Member,
    Persona::OtherClient,
    Persona::Approver,
    Persona::Admin,
];

impl Rule {
    /// The status `p` gets from a route whose successful answer is `ok`.
    fn expect(self, p: Persona, ok: u16) -> u16 {
        use Persona::*;
        match (self, p) {
            (Rule::Anyone, _) => ok,
            (_, Anonymous) => 401,
            (Rule::SignedIn, _) => ok,
            (Rule::Admin, Admin) => ok,
            (Rule::Admin, _) => 403,
            (_, OtherClient) => 404,
            (Rule::ClientRead, _) => ok,
            (Rule::ClientWrite, Viewer) => 403,
            (Rule::ClientWrite, _) => ok,
            (Rule::Approver, Admin | Approver) => ok,
            (Rule::Approver, _) => 403,
        }
    }
}

/// A fresh row a call needs (created by an admin on Bank A's board or report list before each
/// call, so that deleting calls each delete their own).
#[derive(Debug, Clone, Copy)]
enum Needs {
    Nothing,
    Column,
    Task,
    Category,
    Report,
    Folder,
    /// A stored CSV file of Bank A (uploaded by the admin).
    File,
    /// A mapping template of Bank A.
    Template,
    /// A lever.
    Lever,
    /// A column definition of a lever (created by the admin).
    Definition,
    /// A queued processing run of a file of Bank A (no worker runs in the matrix's server).
    Run,
    /// A failed processing run of a file of Bank A (its file's latest).
    FailedRun,
    /// A completed processing run of Bank A over a stored PSE file (its result landed by hand).
    CompletedRun,
    /// A universal column suggestion.
    Suggestion,
    /// A lever without column definitions (written directly).
    BareLever,
    /// A pending validation of Bank A (a file whose run's result landed).
    Validation,
    /// A saved calculator scenario of Bank A.
    Scenario,
    /// An enhanced-AI classification of a stored file of Bank A waiting for review.
    Classification,
    /// An analysis file of a new lever of the dictionary (uploaded by the admin).
    LeverFile,
    /// A named version of a report of Bank A (taken by the admin).
    ReportVersion,
    /// A user who is a member of Bank A (written directly), for the routes that remove one.
    User,
    /// A report template (created by the admin).
    ReportTemplate,
    /// A lever justification template (created by the admin).
    JustificationTemplate,
    /// A failed knowledge-base document (written directly; no worker takes it).
    KnowledgeDocument,
    /// A CSV file uploaded to a new report of Bank A (by the admin): `{report}/media/{media}`.
    ReportMedia,
}

/// One route: method, path as the OpenAPI description names it, rule, what a successful call
/// answers, whether the call ends the caller's session, and the request (`{id}`-style
/// placeholders of the path are filled with the fresh row's id, `{client}` with Bank A's).
struct Route {
    method: &'static str,
    path: &'static str,
    rule: Rule,
    ok: u16,
    needs: Needs,
    ends_session: bool,
    limited: bool,
    query: &'static str,
    body: fn(&Fixture) -> Option<Value>,
}

const fn route(method: &'static str, path: &'static str, rule: Rule, ok: u16) -> Route {
    Route {
        method,
        path,
        rule,
        ok,
        needs: Needs::Nothing,
        ends_session: false,
        limited: false,
        query: "",
        body: |_| None,
    }
}

impl Route {
    const fn needs(mut self, n: Needs) -> Route {
        self.needs = n;
        self
    }
    const fn on_client(mut self) -> Route {
        self.query = "?client_id={client}";
        self
    }
    const fn query(mut self, q: &'static str) -> Route {
        self.query = q;
        self
    }
    const fn body(mut self, f: fn(&Fixture) -> Option<Value>) -> Route {
        self.body = f;
        self
    }
    /// Limited per client address (five calls from one address): called by three personas, one
    /// anonymous and two signed in, since the rule does not depend on the caller.
    const fn limited(mut self) -> Route {
        self.limited = true;
        self
    }
    const fn ends_session(mut self) -> Route {
        self.ends_session = true;
        self
    }
}

/// Ids the requests are made of.
struct Fixture {
    client: String,
    column: String,
    fresh: String,
    viewer_id: String,
    unique: String,
    /// An active report template (created by the admin before the routes run).
    template: String,
}

/// Every route with its rule. Paths as served (under `/api`).
const ROUTES: &[Route] = &[
    route("GET", "/api/health", Rule::Anyone, 200),
    route("GET", "/api/openapi.json", Rule::Anyone, 200),
    // Authentication.
    route("POST", "/api/auth/login", Rule::Anyone, 401).body(|f| {
        Some(json!({"email": format!("nobody-{}@example.com", f.unique), "password": "Wrong-password-1"}))
    }),
    route("POST", "/api/auth/refresh", Rule::SignedIn, 200),
    // Signing out is idempotent: without a session it only clears the cookies.
    route("POST", "/api/auth/logout", Rule::Anyone, 204).ends_session(),
    route("GET", "/api/auth/me", Rule::SignedIn, 200),
    route("GET", "/api/auth/session", Rule::Anyone, 200),
    route("POST", "/api/auth/forgot-password", Rule::Anyone, 202)
        .limited()
        .body(|_| Some(json!({"email": "nobody@example.com"}))),
    route("POST", "/api/auth/reset-password", Rule::Anyone, 400)
        .body(|_| Some(json!({"token": "not-a-token", "password": "Another-Password-2"}))),
    route("POST", "/api/auth/accept-terms", Rule::SignedIn, 200),
    route("POST", "/api/auth/change-password", Rule::SignedIn, 400).body(|_| {
        Some(json!({"current_password": "not-the-password", "new_password": "Another-Password-2"}))
    }),
    // Invitations and the waitlist.
    route("POST", "/api/admin/invitations", Rule::Admin, 201).body(|f| {
        Some(json!({"name": "New", "last_name": "Person", "email": format!("invitee-{}@bank-a.example", f.unique), "role": "user", "client_id": f.client}))
    }),
    route("GET", "/api/invitations/{token}", Rule::Anyone, 404),
    route("POST", "/api/invitations/{token}/accept", Rule::Anyone, 404).body(|_| {
        Some(json!({"name": "New", "last_name": "Person", "password": "Another-Password-2"}))
    }),
    route("POST", "/api/waitlist", Rule::Anyone, 200)
        .limited()
        .body(|f| Some(json!({"email": format!("wait-{}@example.com", f.unique), "source": "hero"}))),
    route("GET", "/api/clients", Rule::SignedIn, 200),
    // Back office.
    route("GET", "/api/admin/dashboard/metrics", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/evolution", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/overview", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/levers", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/clients", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/clients/{client_id}/levers", Rule::Admin, 200),
    route("GET", "/api/admin/dashboard/export", Rule::Admin, 200),
    route("GET", "/api/dashboard", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/dashboard/export", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/admin/outbox", Rule::Admin, 200),
    route("PUT", "/api/admin/users/{id}/role", Rule::Admin, 200)
        .body(|_| Some(json!({"role": "viewer"}))),
    // Clients and the client data room (administrators; `{client_id}` is Bank A, its details
    // written back unchanged).
    route("GET", "/api/admin/clients", Rule::Admin, 200),
    route("POST", "/api/admin/clients", Rule::Admin, 201).body(|f| {
        Some(json!({"name": format!("Matrix client {}", f.unique), "description": "Matrix", "fromDate": "2024-02-01"}))
    }),
    route("GET", "/api/admin/clients/{client_id}", Rule::Admin, 200),
    route("PUT", "/api/admin/clients/{client_id}", Rule::Admin, 200).body(|_| {
        Some(json!({"name": "Bank A", "description": "Spanish retail and commercial bank (demo data)", "fromDate": "2024-01-01",
            "officialCet1Capital": 6_530_000_000.0_f64, "officialTotalRwas": 48_200_000_000.0_f64}))
    }),
    route("PUT", "/api/admin/clients/{client_id}/savings", Rule::Admin, 200)
        .body(|_| Some(json!({"cet1SavingsRwas": 1_000_000.0}))),
    route("PUT", "/api/admin/clients/{client_id}/members/{user_id}", Rule::Admin, 204)
        .body(|_| Some(json!({"role": "member"}))),
    route("DELETE", "/api/admin/clients/{client_id}/members/{user_id}", Rule::Admin, 204)
        .needs(Needs::User),
    route("POST", "/api/admin/clients/sync-admins", Rule::Admin, 200),
    // User Management (administrators; `{id}` is Bank A's viewer, or a fresh user to remove).
    route("GET", "/api/admin/users", Rule::Admin, 200),
    route("POST", "/api/admin/users", Rule::Admin, 201).body(|f| {
        Some(json!({"name": "New", "lastName": "User", "email": format!("new-{}@bank-a.example", f.unique), "role": "user", "clientId": f.client}))
    }),
    route("GET", "/api/admin/users/export", Rule::Admin, 200),
    route("POST", "/api/admin/users/email", Rule::Admin, 200)
        .body(|_| Some(json!({"subject": "Matrix", "message": "Matrix", "q": "nobody-matches-this"}))),
    route("POST", "/api/admin/users/assign-client", Rule::Admin, 200)
        .body(|f| Some(json!({"userIds": [f.viewer_id], "clientId": f.client, "role": "member"}))),
    route("GET", "/api/admin/users/{id}", Rule::Admin, 200),
    route("PATCH", "/api/admin/users/{id}", Rule::Admin, 200).body(|f| {
        Some(json!({"name": "Victor", "lastName": "Viewer", "email": "viewer@example.com", "company": "Bank A", "role": "viewer", "clientIds": [f.client]}))
    }),
    route("DELETE", "/api/admin/users/{id}", Rule::Admin, 204).needs(Needs::User),
    // File Management (every client's files; lever "lever-pse" is migration 0007's).
    route("GET", "/api/admin/files", Rule::Admin, 200),
    route("POST", "/api/admin/files/assign-lever", Rule::Admin, 200)
        .needs(Needs::File)
        .body(|f| Some(json!({"fileIds": [f.fresh], "leverId": "lever-pse"}))),
    route("POST", "/api/admin/files/delete", Rule::Admin, 200)
        .needs(Needs::File)
        .body(|f| Some(json!({"fileIds": [f.fresh]}))),
    route("GET", "/api/admin/files/{file_id}", Rule::Admin, 200).needs(Needs::File),
    route("PATCH", "/api/admin/files/{file_id}", Rule::Admin, 200)
        .needs(Needs::File)
        .body(|_| Some(json!({"savingsRwas": 12.5, "savingsBps": 0.25}))),
    route("POST", "/api/admin/files/{file_id}/lever", Rule::Admin, 200)
        .needs(Needs::File)
        .body(|_| Some(json!({"leverId": "lever-pse"}))),
    route("GET", "/api/admin/files/{file_id}/history", Rule::Admin, 200).needs(Needs::File),
    // Reports.
    route("GET", "/api/reports", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/reports", Rule::ClientWrite, 201)
        .body(|f| Some(json!({"name": format!("Matrix {}", f.unique), "client_id": f.client}))),
    route("GET", "/api/reports/draft-limit", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/reports/folders", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/reports/folders", Rule::ClientWrite, 201)
        .body(|f| Some(json!({"name": format!("Folder {}", f.unique), "client_id": f.client}))),
    route("DELETE", "/api/reports/folders/{folder_id}", Rule::ClientWrite, 204)
        .needs(Needs::Folder),
    route("GET", "/api/reports/{report_id}", Rule::ClientRead, 200).needs(Needs::Report),
    route("PATCH", "/api/reports/{report_id}", Rule::ClientWrite, 200)
        .needs(Needs::Report)
        .body(|_| Some(json!({"name": "Renamed by the matrix"}))),
    route("DELETE", "/api/reports/{report_id}", Rule::ClientWrite, 204).needs(Needs::Report),
    // A report's data and media: readers list and view, writers upload (here without a
    // multipart body: 400 once allowed; the uploads are tested in report_media.rs) and delete.
    route("GET", "/api/reports/{report_id}/media", Rule::ClientRead, 200).needs(Needs::Report),
    route("POST", "/api/reports/{report_id}/media", Rule::ClientWrite, 400).needs(Needs::Report),
    route("GET", "/api/reports/{report_id}/media/{media_id}", Rule::ClientRead, 200)
        .needs(Needs::ReportMedia),
    route("DELETE", "/api/reports/{report_id}/media/{media_id}", Rule::ClientWrite, 204)
        .needs(Needs::ReportMedia),
    route("GET", "/api/reports/{report_id}/media/{media_id}/rows", Rule::ClientRead, 200)
        .needs(Needs::ReportMedia),
    route("GET", "/api/reports/{report_id}/datasets", Rule::ClientRead, 200).needs(Needs::Report),
    route("GET", "/api/reports/{report_id}/datasets/{dataset}", Rule::ClientRead, 200)
        .needs(Needs::Report),
    route("GET", "/api/reports/{report_id}/export", Rule::ClientRead, 200).needs(Needs::Report),
    // Version history: readers list and view versions, writers take, restore and delete them.
    route("GET", "/api/reports/{report_id}/versions", Rule::ClientRead, 200).needs(Needs::Report),
    route("POST", "/api/reports/{report_id}/versions", Rule::ClientWrite, 201)
        .needs(Needs::Report)
        .body(|f| Some(json!({"name": format!("Version {}", f.unique)}))),
    route("GET", "/api/reports/{report_id}/versions/{version_id}", Rule::ClientRead, 200)
        .needs(Needs::ReportVersion),
    route("POST", "/api/reports/{report_id}/versions/{version_id}/restore", Rule::ClientWrite, 200)
        .needs(Needs::ReportVersion),
    route("DELETE", "/api/reports/{report_id}/versions/{version_id}", Rule::ClientWrite, 204)
        .needs(Needs::ReportVersion),
    route("POST", "/api/reports/{report_id}/import-template", Rule::ClientWrite, 200)
        .needs(Needs::Report)
        .body(|f| Some(json!({"templateId": f.template}))),
    // The AI text assistant: the report's editors (the fixture's client has no processed file,
    // so the built-in engine says it has no figures to write from).
    route("POST", "/api/reports/{report_id}/sections/generate", Rule::ClientWrite, 422)
        .needs(Needs::Report)
        .body(|_| {
            Some(json!({"sectionTitle": "Capital", "sectionType": "capital", "prompt": "Summarise the savings"}))
        }),
    // Report templates: administrators keep them, everyone signed in lists the active ones.
    route("GET", "/api/report-templates", Rule::SignedIn, 200),
    route("GET", "/api/admin/report-templates", Rule::Admin, 200),
    route("POST", "/api/admin/report-templates", Rule::Admin, 201).body(|f| {
        Some(json!({"name": format!("Matrix template {}", f.unique), "templateType": "eba"}))
    }),
    route("GET", "/api/admin/report-templates/{template_id}", Rule::Admin, 200)
        .needs(Needs::ReportTemplate),
    route("PUT", "/api/admin/report-templates/{template_id}", Rule::Admin, 200)
        .needs(Needs::ReportTemplate)
        .body(|f| {
            Some(json!({
                "name": format!("Edited template {}", f.unique),
                "description": "",
                "sections": [{"title": "Scope", "kind": "introduction", "content": "Text"}],
                "branding": {"primaryColor": "#1e3a8a", "secondaryColor": "#0ea5e9", "backgroundColor": "#ffffff",
                    "fontFamily": "Arial", "headingFontFamily": "Georgia", "fontScale": 1.0, "orientation": "landscape", "subtitle": ""},
                "isActive": false
            }))
        }),
    route("DELETE", "/api/admin/report-templates/{template_id}", Rule::Admin, 204)
        .needs(Needs::ReportTemplate),
    // Without a multipart body.
    route("POST", "/api/admin/report-templates/import", Rule::Admin, 400),
    route("GET", "/api/admin/report-templates/{template_id}/export", Rule::Admin, 200)
        .needs(Needs::ReportTemplate),
    // Lever justifications (administrators only), and a memo of Bank A's completed run.
    route("GET", "/api/admin/justification-templates", Rule::Admin, 200),
    route("POST", "/api/admin/justification-templates", Rule::Admin, 201).body(|f| {
        Some(json!({"name": format!("Matrix memo {}", f.unique), "category": "internal", "templateContent": "Run {{ runId }}"}))
    }),
    route("GET", "/api/admin/justification-templates/defaults", Rule::Admin, 200),
    route("PUT", "/api/admin/justification-templates/{template_id}", Rule::Admin, 200)
        .needs(Needs::JustificationTemplate)
        .body(|f| {
            Some(json!({"name": format!("Edited memo {}", f.unique), "category": "regulatory", "templateContent": "{{ clientName }}", "isDefault": false}))
        }),
    route("DELETE", "/api/admin/justification-templates/{template_id}", Rule::Admin, 204)
        .needs(Needs::JustificationTemplate),
    route("POST", "/api/admin/runs/{run_id}/justification-memo", Rule::Admin, 200)
        .needs(Needs::CompletedRun)
        .body(|_| Some(json!({}))),
    // Task board.
    route("GET", "/api/board", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/board/columns", Rule::ClientWrite, 201)
        .on_client()
        .body(|_| Some(json!({"name": "Matrix column"}))),
    route("PATCH", "/api/board/columns/{id}", Rule::ClientWrite, 200)
        .on_client()
        .needs(Needs::Column)
        .body(|_| Some(json!({"name": "Renamed column"}))),
    route("POST", "/api/board/columns/{id}/move", Rule::ClientWrite, 200)
        .on_client()
        .needs(Needs::Column)
        .body(|_| Some(json!({}))),
    route("POST", "/api/board/tasks", Rule::ClientWrite, 201)
        .on_client()
        .body(|f| Some(json!({"column_id": f.column, "title": "Matrix task"}))),
    route("PUT", "/api/board/tasks/{id}", Rule::ClientWrite, 200)
        .on_client()
        .needs(Needs::Task)
        .body(|_| Some(json!({"title": "Edited by the matrix"}))),
    route("DELETE", "/api/board/tasks/{id}", Rule::ClientWrite, 204)
        .on_client()
        .needs(Needs::Task),
    route("POST", "/api/board/tasks/{id}/move", Rule::ClientWrite, 200)
        .on_client()
        .needs(Needs::Task)
        .body(|f| Some(json!({"column_id": f.column}))),
    route("POST", "/api/board/categories", Rule::ClientWrite, 201)
        .on_client()
        .body(|f| Some(json!({"name": format!("Category {}", f.unique)}))),
    route("DELETE", "/api/board/categories/{id}", Rule::ClientWrite, 204)
        .on_client()
        .needs(Needs::Category),
    // Processing runs.
    route("GET", "/api/runs", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/runs/{run_id}", Rule::ClientRead, 200).needs(Needs::Run),
    route("POST", "/api/runs/{run_id}/cancel", Rule::ClientWrite, 200).needs(Needs::Run),
    // AI explainability: a client's runs read by its members, viewers and admins.
    route("GET", "/api/insights/runs", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/insights/runs/{run_id}", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::CompletedRun),
    route("GET", "/api/insights/runs/{run_id}/decisions", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::CompletedRun),
    route("GET", "/api/insights/runs/{run_id}/decisions/{row}", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::CompletedRun),
    route("GET", "/api/insights/runs/{run_id}/decisions/{row}/history", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::CompletedRun),
    route("GET", "/api/insights/runs/{run_id}/export", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::CompletedRun),
    // The Q&A agent: a client's readers ask about its files (one in focus here) and keep their
    // own conversation.
    route("POST", "/api/qa/ask", Rule::ClientRead, 200)
        .on_client()
        .needs(Needs::File)
        .body(|f| Some(json!({"question": "Total exposures in this file", "fileId": f.fresh}))),
    route("GET", "/api/qa/conversation", Rule::ClientRead, 200).on_client(),
    route("DELETE", "/api/qa/conversation", Rule::ClientRead, 204).on_client(),
    // Processing runs of every client (administrators).
    route("GET", "/api/admin/runs", Rule::Admin, 200),
    route("GET", "/api/admin/runs/{run_id}", Rule::Admin, 200).needs(Needs::Run),
    route("POST", "/api/admin/runs/{run_id}/retry", Rule::Admin, 201).needs(Needs::FailedRun),
    // Classification training (administrators; lever "lever-corporates" is migration 0007's).
    route("GET", "/api/admin/classification-reviews", Rule::Admin, 200),
    route("GET", "/api/admin/classification-reviews/{run_id}", Rule::Admin, 200)
        .needs(Needs::Classification),
    route("POST", "/api/admin/classification-reviews/{run_id}/approve", Rule::Admin, 200)
        .needs(Needs::Classification)
        .body(|_| Some(json!({"leverId": "lever-corporates", "feedback": "Matrix"}))),
    route("POST", "/api/admin/classification-reviews/{run_id}/reject", Rule::Admin, 200)
        .needs(Needs::Classification)
        .body(|_| Some(json!({"feedback": "Matrix"}))),
    // Universal column mappings (administrators).
    route("GET", "/api/admin/universal-suggestions", Rule::Admin, 200),
    route("POST", "/api/admin/universal-suggestions", Rule::Admin, 201).body(|f| {
        Some(json!({"sourceColumnName": format!("Matrix source {}", f.unique), "targetColumnName": "NIF"}))
    }),
    route("PATCH", "/api/admin/universal-suggestions/{suggestion_id}", Rule::Admin, 200)
        .needs(Needs::Suggestion)
        .body(|_| Some(json!({"enabled": false}))),
    route("DELETE", "/api/admin/universal-suggestions/{suggestion_id}", Rule::Admin, 204)
        .needs(Needs::Suggestion),
    route("PUT", "/api/admin/universal-suggestions/learning", Rule::Admin, 200)
        .body(|_| Some(json!({"enabled": true}))),
    // Files: the upload routes are called with a JSON body, so callers who may upload get the
    // multipart refusal (400); the uploads themselves are tested in files.rs.
    route("GET", "/api/files", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/files", Rule::ClientWrite, 400)
        .on_client()
        .body(|_| Some(json!({}))),
    route("POST", "/api/files/inspect", Rule::ClientWrite, 400)
        .on_client()
        .body(|_| Some(json!({}))),
    route("GET", "/api/files/{file_id}", Rule::ClientRead, 200).needs(Needs::File),
    route("DELETE", "/api/files/{file_id}", Rule::ClientWrite, 204).needs(Needs::File),
    route("GET", "/api/files/{file_id}/original", Rule::ClientRead, 200).needs(Needs::File),
    // Not processed: no output to download.
    route("GET", "/api/files/{file_id}/processed", Rule::ClientRead, 404).needs(Needs::File),
    route("GET", "/api/levers", Rule::SignedIn, 200),
    route("GET", "/api/levers/{lever_id}/columns", Rule::SignedIn, 200).needs(Needs::Lever),
    route("GET", "/api/levers/{lever_id}/column-definitions", Rule::SignedIn, 200)
        .needs(Needs::Lever),
    route("PUT", "/api/levers/{lever_id}/column-definitions/order", Rule::Admin, 200)
        .needs(Needs::BareLever)
        .body(|_| Some(json!({"ids": []}))),
    route("POST", "/api/levers/{lever_id}/column-definitions", Rule::Admin, 201)
        .needs(Needs::Lever)
        .body(|f| {
            Some(json!({"name": format!("Column {}", f.unique), "dataType": "text", "category": "core"}))
        }),
    route("PUT", "/api/lever-column-definitions/{definition_id}", Rule::Admin, 200)
        .needs(Needs::Definition)
        .body(|f| {
            Some(json!({"name": format!("Renamed {}", f.unique), "dataType": "numeric", "category": "analysis", "isRequired": true}))
        }),
    route("DELETE", "/api/lever-column-definitions/{definition_id}", Rule::Admin, 204)
        .needs(Needs::Definition),
    route("GET", "/api/mapping-templates", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/mapping-templates", Rule::ClientWrite, 201)
        .on_client()
        .body(|f| {
            Some(json!({"name": format!("Template {}", f.unique), "leverId": null, "sourceColumns": ["NIF"], "mapping": {"NIF": "NIF"}}))
        }),
    route("DELETE", "/api/mapping-templates/{template_id}", Rule::ClientWrite, 204)
        .needs(Needs::Template),
    // Validations (the Alerts tab): read by the client's members, decided by its approvers.
    route("GET", "/api/validations", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/validations/summary", Rule::ClientRead, 200).on_client(),
    route("GET", "/api/validations/{validation_id}", Rule::ClientRead, 200)
        .needs(Needs::Validation),
    route("POST", "/api/validations/{validation_id}/approve", Rule::Approver, 200)
        .needs(Needs::Validation),
    route("POST", "/api/validations/{validation_id}/reject", Rule::Approver, 200)
        .needs(Needs::Validation)
        .body(|_| Some(json!({"reason": "Rejected by the matrix"}))),
    route("POST", "/api/validations/{validation_id}/status", Rule::Approver, 200)
        .needs(Needs::Validation)
        .body(|_| Some(json!({"status": "approved", "expectedStatus": "pending"}))),
    // Calculators: the admin one on given figures, the client one on the client's figures, and
    // the client's saved scenarios.
    route("POST", "/api/admin/calculator", Rule::Admin, 200).body(|_| {
        Some(json!({"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "bps", "value": 10}}))
    }),
    route("GET", "/api/calculator", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/calculator", Rule::ClientRead, 200)
        .on_client()
        .body(|_| Some(json!({"optimisation": {"by": "bps", "value": 10}}))),
    route("GET", "/api/calculator/scenarios", Rule::ClientRead, 200).on_client(),
    route("POST", "/api/calculator/scenarios", Rule::ClientWrite, 201).body(|f| {
        Some(json!({"clientId": f.client, "name": format!("Scenario {}", f.unique), "optimisation": {"by": "bps", "value": 10}}))
    }),
    route("DELETE", "/api/calculator/scenarios/{scenario_id}", Rule::ClientWrite, 204)
        .needs(Needs::Scenario),
    // FAQ & Support.
    route("GET", "/api/support", Rule::SignedIn, 200),
    // The lever dictionary (administrators).
    route("GET", "/api/admin/levers", Rule::Admin, 200),
    route("POST", "/api/admin/levers", Rule::Admin, 201).body(|f| {
        Some(json!({"name": format!("Dictionary lever {}", f.unique), "category": "Assets", "description": "Matrix"}))
    }),
    route("PUT", "/api/admin/levers/{lever_id}", Rule::Admin, 200)
        .needs(Needs::BareLever)
        .body(|f| {
            Some(json!({"name": format!("Renamed lever {}", f.unique), "category": "Other", "description": ""}))
        }),
    route("DELETE", "/api/admin/levers/{lever_id}", Rule::Admin, 204).needs(Needs::BareLever),
    route("PUT", "/api/admin/levers/{lever_id}/category", Rule::Admin, 200)
        .needs(Needs::BareLever)
        .body(|_| Some(json!({"category": "CRMT"}))),
    route("GET", "/api/admin/levers/{lever_id}/files", Rule::Admin, 200).needs(Needs::BareLever),
    // Without a multipart body.
    route("POST", "/api/admin/levers/{lever_id}/files", Rule::Admin, 400).needs(Needs::BareLever),
    route("GET", "/api/admin/lever-files/{file_id}/download", Rule::Admin, 200)
        .needs(Needs::LeverFile),
    route("DELETE", "/api/admin/lever-files/{file_id}", Rule::Admin, 204).needs(Needs::LeverFile),
    // The knowledge base.
    route("GET", "/api/admin/knowledge/documents", Rule::Admin, 200),
    // Without a multipart body.
    route("POST", "/api/admin/knowledge/documents", Rule::Admin, 400),
    route("GET", "/api/admin/knowledge/documents/{document_id}", Rule::Admin, 200)
        .needs(Needs::KnowledgeDocument),
    route("DELETE", "/api/admin/knowledge/documents/{document_id}", Rule::Admin, 204)
        .needs(Needs::KnowledgeDocument),
    route("GET", "/api/admin/knowledge/search", Rule::Admin, 200).query("?q=capital&limit=5"),
    route("GET", "/api/admin/knowledge/stats", Rule::Admin, 200),
    route("GET", "/api/admin/knowledge/settings", Rule::Admin, 200),
    route("PUT", "/api/admin/knowledge/settings", Rule::Admin, 200)
        .body(|_| Some(json!({"chunkWords": 200}))),
    route("POST", "/api/admin/knowledge/reindex", Rule::Admin, 200),
    // The fixture's document failed: there is nothing to extract from.
    route("POST", "/api/admin/knowledge/documents/{document_id}/extract", Rule::Admin, 422)
        .needs(Needs::KnowledgeDocument),
    route("POST", "/api/admin/knowledge/levers", Rule::Admin, 201).body(|_| {
        Some(json!({"levers": [{
            "leverName": "Matrix lever", "leverCategory": "Assets", "description": "A lever",
            "articleReference": "Article 116", "confidenceScore": 0.8, "variables": [],
            "rules": [{"ruleName": "Short term", "ruleType": "calculation", "ruleDescription": "",
                "conditions": {"maturity": "le_3m_original"}, "actions": {"riskWeight": 20},
                "priority": 90, "isActive": true, "articleReference": "Article 116(3)"}]
        }]}))
    }),
    route("GET", "/api/admin/knowledge/rules", Rule::Admin, 200),
    // Settings and profile: one's own profile, colleagues' avatars (the viewer has none), the
    // client's project settings, the configuration administrators see.
    route("GET", "/api/profile", Rule::SignedIn, 200),
    route("PUT", "/api/profile", Rule::SignedIn, 200)
        .body(|f| Some(json!({"name": "Matrix", "lastName": format!("User {}", f.unique)}))),
    // Without a multipart body.
    route("PUT", "/api/profile/avatar", Rule::SignedIn, 400),
    route("DELETE", "/api/profile/avatar", Rule::SignedIn, 200),
    route("GET", "/api/users/{user_id}/avatar", Rule::SignedIn, 404),
    route("GET", "/api/project-settings", Rule::ClientRead, 200).on_client(),
    route("PUT", "/api/project-settings", Rule::ClientWrite, 200)
        .on_client()
        .body(|f| Some(json!({"name": "Bank A", "description": format!("Matrix {}", f.unique)}))),
    route("GET", "/api/admin/configuration", Rule::Admin, 200),
    // Sockets, called without the upgrade: 401 anonymous, 426 signed in.
    route("GET", "/api/ws", Rule::SignedIn, 426),
    route("GET", "/api/collab/{report_id}", Rule::SignedIn, 426).needs(Needs::Report),
];

/// Routes served outside the OpenAPI description (the description itself).
const UNDESCRIBED: &[(&str, &str)] = &[("GET", "/api/openapi.json")];

/// The (method, path) pairs of the OpenAPI description the server serves.
fn described(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete", "head", "options"] {
            if item.get(method).is_some() {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

#[tokio::test]
async fn every_served_route_has_a_rule() {
    let app = TestApp::spawn().await;
    let (st, doc) = app.client().await.json("/api/openapi.json").await;
    assert_eq!(st, StatusCode::OK);
    let served = described(&doc);
    let ruled: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    let missing: Vec<_> = served.difference(&ruled).collect();
    assert!(
        missing.is_empty(),
        "routes without a rule in server/tests/api/matrix.rs: {missing:?}"
    );
    let stale: Vec<_> = ruled
        .difference(&served)
        .filter(|(m, p)| !UNDESCRIBED.contains(&(m.as_str(), p.as_str())))
        .collect();
    assert!(
        stale.is_empty(),
        "rules for routes the server does not serve: {stale:?}"
    );
}

/// A new report of Bank A (created by the admin); its id. The matrix creates more reports than a
/// month's drafts allow one user, so the admin's draft counter starts again each time.
async fn matrix_report(app: &TestApp, admin: &Session, f: &Fixture, n: usize) -> String {
    sqlx::query("DELETE FROM report_draft_counts")
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    id_of(
        admin,
        Method::POST,
        "/api/reports",
        json!({"name": format!("Report {n}"), "client_id": f.client}),
    )
    .await
}

async fn id_of(s: &Session, method: Method, path: &str, body: Value) -> String {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let r = s
        .http
        .request(method, format!("{}{}", s.base, path))
        .header("x-csrf-token", csrf)
        .json(&body)
        .send()
        .await
        .unwrap();
    let (st, v) = body_of(r).await;
    assert!(st.is_success(), "{path}: {st} {v}");
    v["id"].as_str().expect("id").to_string()
}

async fn body_of(r: reqwest::Response) -> (StatusCode, Value) {
    let st = r.status();
    let text = r.text().await.unwrap_or_default();
    (
        st,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A CSV file of a client uploaded by `admin`: its id.
async fn matrix_upload(admin: &Session, client: &str, n: usize) -> String {
    let csrf = admin.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(
            format!("NIF,Exposure_Amount\nQ2826000H,{n}\n").into_bytes(),
        )
        .file_name(format!("matrix-{n}.csv")),
    );
    let r = admin
        .http
        .post(format!("{}/api/files?client_id={client}", admin.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (st, v) = body_of(r).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v["file"]["id"].as_str().expect("file id").to_string()
}

/// A fresh row of Bank A for a call.
async fn fresh(app: &TestApp, admin: &Session, f: &Fixture, needs: Needs, n: usize) -> String {
    let q = format!("?client_id={}", f.client);
    match needs {
        Needs::Nothing => String::new(),
        Needs::Column => {
            id_of(
                admin,
                Method::POST,
                &format!("/api/board/columns{q}"),
                json!({"name": format!("Column {n}")}),
            )
            .await
        }
        Needs::Task => {
            id_of(
                admin,
                Method::POST,
                &format!("/api/board/tasks{q}"),
                json!({"column_id": f.column, "title": format!("Task {n}")}),
            )
            .await
        }
        Needs::Category => {
            id_of(
                admin,
                Method::POST,
                &format!("/api/board/categories{q}"),
                json!({"name": format!("Own category {n}")}),
            )
            .await
        }
        Needs::Report => matrix_report(app, admin, f, n).await,
        Needs::File => matrix_upload(admin, &f.client, n).await,
        Needs::ReportMedia => {
            let report = matrix_report(app, admin, f, n).await;
            let csrf = admin.cookie("capopt_csrf").unwrap_or_default();
            let form = reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(format!("Month,Savings\nJan,{n}\n").into_bytes())
                    .file_name(format!("media-{n}.csv")),
            );
            let r = admin
                .http
                .post(format!("{}/api/reports/{report}/media", admin.base))
                .header("x-csrf-token", csrf)
                .multipart(form)
                .send()
                .await
                .unwrap();
            let (st, v) = body_of(r).await;
            assert_eq!(st, StatusCode::CREATED, "{v}");
            format!("{report}/media/{}", v["id"].as_str().expect("media id"))
        }
        Needs::ReportVersion => {
            let report = matrix_report(app, admin, f, n).await;
            let version = id_of(
                admin,
                Method::POST,
                &format!("/api/reports/{report}/versions"),
                json!({"name": format!("Version {n}")}),
            )
            .await;
            format!("{report}/versions/{version}")
        }
        Needs::ReportTemplate => {
            id_of(
                admin,
                Method::POST,
                "/api/admin/report-templates",
                json!({"name": format!("Matrix template {n}"), "templateType": "basel_iii"}),
            )
            .await
        }
        Needs::JustificationTemplate => {
            id_of(
                admin,
                Method::POST,
                "/api/admin/justification-templates",
                json!({"name": format!("Matrix memo {n}"), "category": "custom", "templateContent": "{{ leverName }}"}),
            )
            .await
        }
        Needs::Template => {
            id_of(
                admin,
                Method::POST,
                &format!("/api/mapping-templates{q}"),
                json!({"name": format!("Own template {n}"), "sourceColumns": ["NIF"], "mapping": {"NIF": "NIF"}}),
            )
            .await
        }
        Needs::Definition => {
            let (_, levers) = admin.json("/api/levers").await;
            let lever = levers[0]["id"].as_str().expect("a lever").to_string();
            id_of(
                admin,
                Method::POST,
                &format!("/api/levers/{lever}/column-definitions"),
                json!({"name": format!("Own column {n}"), "dataType": "text", "category": "optional"}),
            )
            .await
        }
        Needs::Lever => {
            let (_, levers) = admin.json("/api/levers").await;
            levers[0]["id"].as_str().expect("a lever").to_string()
        }
        Needs::Folder => {
            id_of(
                admin,
                Method::POST,
                "/api/reports/folders",
                json!({"name": format!("Folder {n}"), "client_id": f.client}),
            )
            .await
        }
        Needs::Run => queued_run(app, &f.client, n).await,
        Needs::CompletedRun => completed_run(app, &f.client, n).await,
        Needs::FailedRun => {
            let run = queued_run(app, &f.client, n).await;
            sqlx::query("UPDATE processing_runs SET state = 'failed', stage = 'done', error = 'Matrix failure' WHERE id = $1")
                .bind(&run)
                .execute(&app.state.db.pool)
                .await
                .unwrap();
            run
        }
        Needs::Suggestion => {
            id_of(
                admin,
                Method::POST,
                "/api/admin/universal-suggestions",
                json!({"sourceColumnName": format!("Own source {n}"), "targetColumnName": "LEI"}),
            )
            .await
        }
        Needs::Validation => pending_validation(app, &f.client, n).await,
        Needs::Classification => classified_run(app, &f.client, n).await,
        Needs::Scenario => {
            id_of(
                admin,
                Method::POST,
                "/api/calculator/scenarios",
                json!({"clientId": f.client, "name": format!("Own scenario {n}"), "optimisation": {"by": "bps", "value": 5}}),
            )
            .await
        }
        Needs::LeverFile => {
            let lever = server::db::clients::insert_lever(
                &app.state.db.pool,
                None,
                &format!("Matrix files lever {n}"),
                "",
                "Assets",
            )
            .await
            .unwrap();
            let csrf = admin.cookie("capopt_csrf").unwrap_or_default();
            let form = reqwest::multipart::Form::new().part(
                "files",
                reqwest::multipart::Part::bytes(b"NIF,Exposure_Amount\nQ2826000H,1\n".to_vec())
                    .file_name(format!("analysis-{n}.csv")),
            );
            let r = admin
                .http
                .post(format!("{}/api/admin/levers/{lever}/files", admin.base))
                .header("x-csrf-token", csrf)
                .multipart(form)
                .send()
                .await
                .unwrap();
            let (st, v) = body_of(r).await;
            assert_eq!(st, StatusCode::CREATED, "{v}");
            v[0]["id"].as_str().expect("lever file id").to_string()
        }
        Needs::User => {
            let id = server::db::users::insert(
                &app.state.db.pool,
                &server::db::users::NewUser {
                    email: &format!("matrix-user-{n}@bank-a.example"),
                    password_hash: None,
                    name: "Matrix",
                    last_name: "User",
                    role: "user",
                    company: Some("Bank A"),
                    terms_accepted_at: None,
                    password_changed_at: None,
                },
            )
            .await
            .unwrap();
            server::db::users::add_to_client(&app.state.db.pool, &f.client, &id, None)
                .await
                .unwrap();
            id
        }
        Needs::KnowledgeDocument => {
            let id = uuid::Uuid::new_v4().to_string();
            let now = server::db::now();
            let mut conn = app.state.db.pool.acquire().await.unwrap();
            server::db::knowledge::insert_document(
                &mut conn,
                &server::db::knowledge::DocumentRow {
                    id: id.clone(),
                    name: format!("matrix-{n}.txt"),
                    file_type: "txt".into(),
                    content_type: "text/plain".into(),
                    size_bytes: 1,
                    storage_key: format!("knowledge/documents/{id}.txt"),
                    category: Some("Assets".into()),
                    lever_id: None,
                    status: "failed".into(),
                    stage: "reading".into(),
                    progress: 10,
                    error: Some("Upload processing failed".into()),
                    pages: None,
                    chunk_count: 0,
                    attempts: 1,
                    lease_until: None,
                    uploaded_by: None,
                    created_at: now.clone(),
                    updated_at: now.clone(),
                    completed_at: Some(now),
                    chunk_words: None,
                },
            )
            .await
            .unwrap();
            id
        }
        Needs::BareLever => server::db::clients::insert_lever(
            &app.state.db.pool,
            None,
            &format!("Matrix lever {n}"),
            "",
            "Assets",
        )
        .await
        .unwrap(),
    }
}

/// A stored file of a client with a queued run (written directly: the matrix checks the run
/// routes, not the upload).
async fn queued_run(app: &TestApp, client: &str, n: usize) -> String {
    let file_id = uuid::Uuid::new_v4().to_string();
    let (user_id,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(ADMIN)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    let mut tx = app.state.db.pool.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, name_lower, file_path, uploaded_at) VALUES ($1, $2, $3, lower($3), '', $4)",
    )
    .bind(&file_id)
    .bind(client)
    .bind(format!("matrix-{n}.csv"))
    .bind(server::db::now())
    .execute(&mut *tx)
    .await
    .unwrap();
    let run = server::service::runs::enqueue(
        &mut tx,
        server::service::runs::NewRun {
            client_id: client.into(),
            file_id,
            user_id: user_id.into(),
            mode: server::service::runs::RunMode::EnhancedAi,
            lever_id: None,
            mapping: None,
            risk_weight_format: None,
            maturity_unit: None,
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    run.to_string()
}

/// A completed run of a client over a stored PSE file (the hand file of the insights tests), its
/// result landed through the same completion as a worker's (no worker runs in the matrix's
/// server).
async fn completed_run(app: &TestApp, client: &str, n: usize) -> String {
    let file = crate::runs::stored_file(
        app,
        client,
        &format!("matrix-{n}.csv"),
        crate::insights::HAND_PSE.as_bytes(),
    )
    .await;
    let run = crate::runs::queue(
        app,
        client,
        &file,
        server::service::runs::RunMode::Manual,
        Some("lever-pse"),
    )
    .await;
    let owner = format!("matrix-{n}");
    sqlx::query(
        "UPDATE processing_runs SET state = 'running', owner = $2, attempts = 1, lease_until = '2999-01-01T00:00:00.000000Z' WHERE id = $1",
    )
    .bind(&run)
    .bind(&owner)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let row = server::db::runs::get(&app.state.db.pool, &run)
        .await
        .unwrap()
        .expect("the run");
    let result = server::service::runs::RunResult {
        lever_id: Some("lever-pse".into()),
        lever_name: Some("Public Sector Entities (PSE)".into()),
        savings_rwas: 900_000.0,
        savings_bps: 0.0,
        confidence: None,
        rows: 3,
        matched: 2,
        not_matched: 1,
        errors: 0,
        mapped_columns: 6,
        classification: None,
        checks: server::service::runs::RunChecks {
            error_rows: 0,
            unreadable_values: 0,
            flagged_rows: 0,
            totals_reconciled: true,
        },
        reporting_date: Some(chrono::Utc::now().date_naive().to_string()),
    };
    assert!(
        server::service::runs::finish(
            &app.state,
            &row,
            &owner,
            server::service::runs::Outcome::Completed {
                processed_key: format!("clients/{client}/output/matrix-run-{n}.csv"),
                result,
                facts: None,
            },
            server::service::runs::Figures::default(),
            row.seq + 1,
        )
        .await
        .unwrap()
    );
    run
}

/// An enhanced-AI run of a client over a stored file of a layout the classifier cannot place,
/// ended pending review with the classifier's real output, through the same completion as a
/// worker's (no worker runs in the matrix's server).
async fn classified_run(app: &TestApp, client: &str, n: usize) -> String {
    let csv = format!("Reference,Amount,Notes\nM-{n},100,x\nM-{n}b,200,y\n");
    let file =
        crate::runs::stored_file(app, client, &format!("matrix-{n}.csv"), csv.as_bytes()).await;
    let run = crate::runs::queue(
        app,
        client,
        &file,
        server::service::runs::RunMode::EnhancedAi,
        None,
    )
    .await;
    let owner = format!("matrix-{n}");
    sqlx::query(
        "UPDATE processing_runs SET state = 'running', owner = $2, attempts = 1, lease_until = '2999-01-01T00:00:00.000000Z' WHERE id = $1",
    )
    .bind(&run)
    .bind(&owner)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let row = server::db::runs::get(&app.state.db.pool, &run)
        .await
        .unwrap()
        .expect("the run");
    let headers = ["Reference", "Amount", "Notes"];
    let rows = vec![vec!["M-1", "100", "x"], vec!["M-2", "200", "y"]];
    let c = analysis::classify::classify(&headers, &rows, &analysis::refdata::RefData::builtin());
    let mut classification = serde_json::to_value(&c).unwrap();
    classification["headers"] = json!(headers);
    let result = server::service::runs::RunResult {
        lever_id: None,
        lever_name: None,
        savings_rwas: 0.0,
        savings_bps: 0.0,
        confidence: Some(c.confidence),
        rows: 0,
        matched: 0,
        not_matched: 0,
        errors: 0,
        mapped_columns: 0,
        classification: Some(classification),
        checks: server::service::runs::RunChecks {
            error_rows: 0,
            unreadable_values: 0,
            flagged_rows: 0,
            totals_reconciled: true,
        },
        reporting_date: None,
    };
    assert!(
        server::service::runs::finish(
            &app.state,
            &row,
            &owner,
            server::service::runs::Outcome::PendingReview { result },
            server::service::runs::Figures::default(),
            row.seq + 1,
        )
        .await
        .unwrap()
    );
    run
}

/// A pending validation of a client: a stored file whose run's result landed through the same
/// completion as a worker's (`service::runs::finish`, no worker runs in the matrix's server).
async fn pending_validation(app: &TestApp, client: &str, n: usize) -> String {
    let run = queued_run(app, client, n).await;
    let owner = format!("matrix-{n}");
    // Claimed by hand: other calls leave older queued runs, which a claim would take first.
    sqlx::query(
        "UPDATE processing_runs SET state = 'running', owner = $2, attempts = 1, lease_until = '2999-01-01T00:00:00.000000Z' WHERE id = $1",
    )
    .bind(&run)
    .bind(&owner)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let row = server::db::runs::get(&app.state.db.pool, &run)
        .await
        .unwrap()
        .expect("the run");
    let result = server::service::runs::RunResult {
        lever_id: Some("lever-pse".into()),
        lever_name: Some("Public Sector Entities (PSE)".into()),
        savings_rwas: n as f64,
        savings_bps: 0.0,
        confidence: None,
        rows: 1,
        matched: 1,
        not_matched: 0,
        errors: 0,
        mapped_columns: 2,
        classification: None,
        checks: server::service::runs::RunChecks {
            error_rows: 0,
            unreadable_values: 0,
            flagged_rows: 0,
            totals_reconciled: true,
        },
        reporting_date: None,
    };
    assert!(
        server::service::runs::finish(
            &app.state,
            &row,
            &owner,
            server::service::runs::Outcome::Completed {
                processed_key: format!("clients/{client}/output/matrix-{n}.csv"),
                result,
                facts: None,
            },
            server::service::runs::Figures::default(),
            row.seq + 1,
        )
        .await
        .unwrap()
    );
    let (id,): (String,) = sqlx::query_as("SELECT id FROM file_validations WHERE run_id = $1")
        .bind(&run)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

/// Everything of Bank A a denied call could have touched, as the admin sees it.
async fn bank_a(admin: &Session, client: &str) -> Value {
    let (_, mut board) = admin.json(&format!("/api/board?client_id={client}")).await;
    board["seq"] = Value::Null;
    let (_, reports) = admin
        .json(&format!("/api/reports?client_id={client}"))
        .await;
    let (_, folders) = admin
        .json(&format!("/api/reports/folders?client_id={client}"))
        .await;
    let (_, runs) = admin.json(&format!("/api/runs?client_id={client}")).await;
    let (_, files) = admin.json(&format!("/api/files?client_id={client}")).await;
    let (_, templates) = admin
        .json(&format!("/api/mapping-templates?client_id={client}"))
        .await;
    let (_, pending) = admin
        .json(&format!(
            "/api/validations?client_id={client}&tab=pending&pageSize=50"
        ))
        .await;
    let (_, history) = admin
        .json(&format!(
            "/api/validations?client_id={client}&tab=history&pageSize=50"
        ))
        .await;
    let (_, scenarios) = admin
        .json(&format!("/api/calculator/scenarios?client_id={client}"))
        .await;
    json!({"files": files, "templates": templates, "board": board, "reports": reports, "folders": folders, "runs": runs, "pending": pending, "history": history, "scenarios": scenarios})
}

#[tokio::test]
async fn every_route_answers_each_persona_as_its_rule_says() {
    // No worker: the runs the calls name stay queued.
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let (_, me) = app.login(USER_A).await.json("/api/auth/me").await;
    let client = me["client"]["id"].as_str().unwrap().to_string();
    let (_, viewer_me) = app.login(VIEWER).await.json("/api/auth/me").await;
    assert_eq!(
        viewer_me["client"]["id"],
        client.as_str(),
        "the viewer is Bank A's"
    );
    let (_, board) = admin.json(&format!("/api/board?client_id={client}")).await;
    let column = board["columns"][0]["id"].as_str().unwrap().to_string();
    let mut sessions = Vec::new();
    for p in PERSONAS {
        sessions.push(match p {
            Persona::Anonymous => app.client().await,
            Persona::Viewer => app.login(VIEWER).await,
            Persona::Member => app.login(USER_A).await,
            Persona::OtherClient => app.login(USER_B).await,
            Persona::Approver => app.login(APPROVER).await,
            Persona::Admin => app.login(ADMIN).await,
        });
    }
    let bank_a_name = board["client_name"].as_str().unwrap().to_string();
    let template = id_of(
        &admin,
        Method::POST,
        "/api/admin/report-templates",
        json!({"name": "Matrix import template", "templateType": "custom"}),
    )
    .await;
    let mut failures = Vec::new();
    let mut n = 0;
    for r in ROUTES {
        for (pi, p) in PERSONAS.iter().enumerate() {
            if r.limited && !matches!(p, Persona::Anonymous | Persona::Member | Persona::Admin) {
                continue;
            }
            n += 1;
            let mut f = Fixture {
                client: client.clone(),
                column: column.clone(),
                fresh: String::new(),
                viewer_id: viewer_me["id"].as_str().unwrap().to_string(),
                unique: format!("{n}"),
                template: template.clone(),
            };
            f.fresh = fresh(&app, &admin, &f, r.needs, n).await;
            let session = if r.ends_session && *p != Persona::Anonymous {
                match p {
                    Persona::Viewer => app.login(VIEWER).await,
                    Persona::Member => app.login(USER_A).await,
                    Persona::OtherClient => app.login(USER_B).await,
                    Persona::Approver => app.login(APPROVER).await,
                    _ => app.login(ADMIN).await,
                }
            } else {
                sessions[pi].clone()
            };
            let path = r
                .path
                .replace(
                    "{id}",
                    if r.path.starts_with("/api/admin/users") && f.fresh.is_empty() {
                        &f.viewer_id
                    } else {
                        &f.fresh
                    },
                )
                .replace("{client_id}", &f.client)
                .replace(
                    "{user_id}",
                    if f.fresh.is_empty() {
                        &f.viewer_id
                    } else {
                        &f.fresh
                    },
                )
                .replace("{report_id}/media/{media_id}", &f.fresh)
                .replace("{report_id}/versions/{version_id}", &f.fresh)
                .replace("{report_id}", &f.fresh)
                .replace("{dataset}", "savings_by_month")
                .replace("{folder_id}", &f.fresh)
                .replace("{file_id}", &f.fresh)
                .replace("{template_id}", &f.fresh)
                .replace("{lever_id}", &f.fresh)
                .replace("{document_id}", &f.fresh)
                .replace("{definition_id}", &f.fresh)
                .replace("{run_id}", &f.fresh)
                .replace("{row}", "1")
                .replace("{suggestion_id}", &f.fresh)
                .replace("{validation_id}", &f.fresh)
                .replace("{scenario_id}", &f.fresh)
                .replace("{client_id}", &f.client)
                .replace("{user_id}", &f.viewer_id)
                .replace("{token}", "no-such-invitation-token");
            let url = format!(
                "{}{}{}",
                app.base,
                path,
                r.query.replace("{client}", &f.client)
            );
            let expected = r.rule.expect(*p, r.ok);
            let before = if expected >= 400 {
                Some(bank_a(&admin, &client).await)
            } else {
                None
            };
            let method = Method::from_bytes(r.method.as_bytes()).unwrap();
            let mut req = session.http.request(method, &url).header(
                "x-csrf-token",
                session.cookie("capopt_csrf").unwrap_or_default(),
            );
            if let Some(b) = (r.body)(&f) {
                req = req.json(&b);
            }
            let (st, body) = body_of(req.send().await.unwrap()).await;
            if st.as_u16() != expected {
                failures.push(format!(
                    "{} {} as {p:?}: {} (expected {expected}) {body}",
                    r.method, r.path, st
                ));
                continue;
            }
            if st.as_u16() >= 400 {
                if body["code"].as_str().is_none() || body["message"].as_str().is_none() {
                    failures.push(format!(
                        "{} {} as {p:?}: error without the {{code, message}} body: {body}",
                        r.method, r.path
                    ));
                }
                let text = body.to_string();
                if *p == Persona::OtherClient
                    && (text.contains(&client) || text.contains(&bank_a_name))
                {
                    failures.push(format!(
                        "{} {} as {p:?} disclosed Bank A: {text}",
                        r.method, r.path
                    ));
                }
            }
            if let Some(before) = before
                && bank_a(&admin, &client).await != before
            {
                failures.push(format!(
                    "{} {} as {p:?} was refused ({st}) but changed Bank A",
                    r.method, r.path
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} calls broke their rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
