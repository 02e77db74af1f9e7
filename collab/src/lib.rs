//! Collaborative documents: Yrs documents over the y-websocket protocol, a registry of live
//! documents (one task per document), a `DocStore` persistence trait and cross-instance fan-out.
//! It knows nothing of HTTP routes, SQL or users: the server authorises a caller, then hands the
//! socket's bytes to a connection.
