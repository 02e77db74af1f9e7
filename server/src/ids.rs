//! Typed ids. Every id is a UUID string on the wire and in the database, but a task id cannot be
//! passed where a column id is expected: services and handlers take these types, and SQL gets
//! them as `&str` (they dereference to it). On the wire an id is its string (serde writes a
//! newtype struct as its field; the TypeScript type is an alias of `string`).

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug,
            Clone,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
            utoipa::ToSchema,
            ts_rs::TS,
        )]
        #[ts(export)]
        pub struct $name(String);

        impl $name {
            /// A new random id.
            pub fn random() -> Self {
                Self(crate::db::new_id())
            }
            /// The id as stored.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<&$name> for String {
            fn eq(&self, other: &&$name) -> bool {
                *self == other.0
            }
        }
    };
}

id_type!(
    /// A user.
    UserId
);
id_type!(
    /// A sign-in session.
    SessionId
);
id_type!(
    /// A client (a bank).
    ClientId
);
id_type!(
    /// A report (also the id of its collaborative document).
    ReportId
);
id_type!(
    /// A report folder.
    FolderId
);
id_type!(
    /// A task of a board.
    TaskId
);
id_type!(
    /// A column of a board.
    ColumnId
);
id_type!(
    /// A task category.
    CategoryId
);
id_type!(
    /// A processing run of a client's file.
    RunId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_plain_strings_on_the_wire() {
        let id = TaskId::from("t-1");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"t-1\"");
        let back: TaskId = serde_json::from_str("\"t-1\"").unwrap();
        assert_eq!(back, id);
        assert_eq!(&*id, "t-1");
        assert_ne!(TaskId::random(), TaskId::random());
    }
}
