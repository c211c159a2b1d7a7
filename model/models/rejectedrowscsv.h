// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

class Workspace;

// Writes every row `iterationId` rejected to `path` as CSV (RFC 4180, UTF-8, CRLF): a header
// row `rejected_at,run_id,iteration_id,table_id,error,key,values`, then one record per row in
// the order they were rejected; times in ISO-8601 with their offset, in the zone the window
// shows them in (TimeConvention); key and values as the JSON objects the workspace stores.
// Reads the workspace a page at a time, so any number of rows fits; the file appears whole or
// not at all (QSaveFile). Meant for a worker thread with its own Workspace. Returns the number
// of rows written; throws Error naming the file when it cannot be written (a file already
// there is then left as it was).
qint64 writeRejectedRowsCsv(Workspace &workspace, qint64 iterationId, const QString &path);

} // namespace tidemark
