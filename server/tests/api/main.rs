//! API integration tests: the real server on 127.0.0.1:0 with a fresh database per test. SQLite by
//! default; PostgreSQL when `TEST_DATABASE_URL` points at a server (a fresh database is created per
//! test). The same tests run on both.

mod helpers;

mod admin_clients;
mod admin_config;
mod admin_users;
mod auth;
mod board;
mod calculator;
mod classification;
mod contract;
mod dashboard;
mod file_management;
mod files;
mod insights;
mod invitations;
mod justifications;
mod knowledge;
mod lever_dictionary;
mod matrix;
mod profile;
mod qa;
mod realtime;
mod report_assistant;
mod report_export;
mod report_media;
mod report_templates;
mod reports;
mod runs;
mod security;
mod storage;
mod template_import;
mod validations;
mod waitlist;
