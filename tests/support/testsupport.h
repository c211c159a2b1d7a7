// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by several test suites. Additive: add a function, don't change one.

#include "model/domain/runrecord.h"

#include <QAbstractItemModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace tidemark {
struct ConnectionSpec;
class RowBatch;
} // namespace tidemark

namespace tidemark::test {

// A SQLite connection spec named `name` on the file `path`.
ConnectionSpec sqliteSpec(const QString &name, const QString &path);
// One value of a batch as a QVariant (integers as qint64, blobs as QByteArray, NULL as invalid).
QVariant cellValue(const RowBatch &batch, int row, int column);

// A QTemporaryDir template for fixtures: under TIDEMARK_TEST_TMPDIR when set, else /dev/shm when
// it is a writable directory (tmpfs: the contract suites commit thousands of small transactions,
// and fsync on a shared disk was most of their run time), else the system's temporary directory.
QString fastTempTemplate();

// Path of the built tidemark-cli (for end-to-end tests through the CLI contract).
inline QString cliPath() {
    return QStringLiteral(TIDEMARK_CLI_PATH);
}

// --- PostgreSQL suites ---

// True when running under CI: CI=true (or 1), as CI systems and .ci/run set it.
bool runningUnderCi();
// Why a PostgreSQL suite cannot run here, for the failure or skip message.
QByteArray postgresMissingMessage();

// First statement of a PostgreSQL suite's initTestCase(). Without a server (TIDEMARK_PG_PORT
// unset) the suite FAILS under CI — CTest counts a skipped suite as passed, so CI could go green
// without it — and elsewhere skips with a warning a developer without PostgreSQL cannot miss.
#define TIDEMARK_REQUIRE_POSTGRES()                                                                          \
    do {                                                                                                     \
        if (qEnvironmentVariableIsEmpty("TIDEMARK_PG_PORT")) {                                               \
            if (tidemark::test::runningUnderCi())                                                            \
                QFAIL(tidemark::test::postgresMissingMessage().constData());                                 \
            qWarning("%s", tidemark::test::postgresMissingMessage().constData());                            \
            QSKIP(tidemark::test::postgresMissingMessage().constData());                                     \
        }                                                                                                    \
    } while (false)

// Why a MariaDB suite cannot run here (TIDEMARK_MARIADB_PORT unset), for the failure or skip message.
QByteArray mariadbMissingMessage();

// First statement of a MariaDB suite's initTestCase(), as TIDEMARK_REQUIRE_POSTGRES: fails under
// CI, skips loudly elsewhere. scripts/mariadbcluster.sh starts a server and prints the port.
#define TIDEMARK_REQUIRE_MARIADB()                                                                           \
    do {                                                                                                     \
        if (qEnvironmentVariableIsEmpty("TIDEMARK_MARIADB_PORT")) {                                          \
            if (tidemark::test::runningUnderCi())                                                            \
                QFAIL(tidemark::test::mariadbMissingMessage().constData());                                  \
            qWarning("%s", tidemark::test::mariadbMissingMessage().constData());                             \
            QSKIP(tidemark::test::mariadbMissingMessage().constData());                                      \
        }                                                                                                    \
    } while (false)

// --- the CLI as a process ---

struct CliResult {
    int exitCode = -1; // -1 when the process crashed or timed out
    bool crashed = false;
    QString out;
    QString err;

    // stderr split into its non-empty lines.
    QStringList errLines() const;
    // "exit N; stdout: ...; stderr: ..." for failure messages.
    QString describe() const;
};

// Runs tidemark-cli with `args` (TIDEMARK_WORKSPACE removed from the environment unless
// `workspaceEnv` is given), in `workingDir` when not empty. Waits up to `timeoutMs`.
CliResult runCli(const QStringList &args, const QString &workingDir = QString(),
                 const QString &workspaceEnv = QString(), int timeoutMs = 300000);

// The state letter of process `pid` from /proc (T = stopped, as at a TIDEMARK_FAULT_STOP point);
// a null QChar when there is no such process.
QChar processState(qint64 pid);

// Parses text that must be exactly one JSON object / array; `ok` says whether it was.
QJsonObject parseJsonObject(const QString &text, bool *ok = nullptr);
QJsonArray parseJsonArray(const QString &text, bool *ok = nullptr);

// --- SQLite fixtures (through SqliteDb; identifiers through quoteIdentifier) ---
// execSql(), queryValue() and queryRows() also take a server workspace's URI (one statement,
// ?N parameters): a suite that runs on both workspace kinds pokes its workspace the same way.

// Runs SQL without parameters on a SQLite file, creating it when missing.
void execSql(const QString &dbPath, const QString &sql);
// Runs one statement with bound parameters.
void execSql(const QString &dbPath, const QString &sql, const QVariantList &params);
qint64 countRows(const QString &dbPath, const QString &table);
// First column of the first row of a query (null when no row).
QVariant queryValue(const QString &dbPath, const QString &sql, const QVariantList &params = {});
// Every row of a query, each column as text.
QList<QStringList> queryRows(const QString &dbPath, const QString &sql, const QVariantList &params = {});
bool tableExists(const QString &dbPath, const QString &table);
// Opens a SQLite file read-write and reads it, as the next writer would: a process killed in the
// middle of a commit leaves its rollback journal hot, which this rolls back. The read-only
// reads above refuse such a file ("attempt to write a readonly database").
void recoverAfterKill(const QString &dbPath);

// The updated_at value makeOrders() gives row `id`: 2025-01-01T00:00:00.000000Z plus id minutes,
// in the canonical spelling.
QString orderTimestamp(int id);

// Creates (if missing) `table` as
//   id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount REAL, updated_at TIMESTAMP NOT NULL
// and inserts `rows` rows with ids firstId.. (customer "customer <id>", amount id * 1.5,
// updated_at = orderTimestamp(id)). `withPrimaryKey` false declares id as a plain INTEGER.
// A queued iteration of `runId` copying src:<table> to dst:<table>, as a run's grid first shows it.
IterationRecord queuedIteration(qint64 runId, qint64 tableId, const QString &table);

// The run ids of `model`'s rows (RunIdRole), top to bottom.
QList<qint64> runIdsOf(const QAbstractItemModel &model);

// Keeps the suites' QSettings (recent workspaces, geometry, the time convention) out of the
// user's own, and each test process's out of the others': CTest runs suites side by side, and
// a shared file let one suite's opened workspace land first in another's recent list.
void isolateSettings();

void makeOrders(const QString &dbPath, int rows, int firstId = 1,
                const QString &table = QStringLiteral("orders"), bool withPrimaryKey = true);

// Creates, in the target file `dbPath`, a makeOrders() `table` whose copies stream row by row: its
// "customer" column has no declared type (it keeps every text as it is), another affinity than
// the source's, so a SQLite push-down is never used. A table that may skip rows is no longer
// enough to stream: into SQLite it pushes down until a row is refused.
void makeStreamingOrdersTarget(const QString &dbPath, const QString &table = QStringLiteral("orders"));

} // namespace tidemark::test
