// SPDX-License-Identifier: MIT
// connection add / edit / remove / test / set-password / forget-password / list.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/passwordinput.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/conninfo.h"
#include "model/connectors/mariadbconnector.h"
#include "model/credentials/credentialstore.h"
#include "model/engine/connectionusage.h"
#include "model/engine/tablesetup.h"
#include "model/storage/workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

namespace tidemark::cli {

namespace {

// The absolute path of `--sqlite PATH` for `command` ("connection add") of connection `name`.
QString checkedSqlitePath(const QString &path, const QString &command, const QString &name) {
    // Relative to where the operator typed it, not to wherever a later run starts.
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // A path no run could ever open is refused now, not at the first table add or run. A
    // missing file is fine (a target is created when first written), a missing folder not.
    const QFileInfo file(absolute);
    if (file.isDir())
        throw ValidationError(
            QStringLiteral("%1 %2: --sqlite %3 is a directory; give the path of a SQLite "
                           "file (in it, e.g. %4)")
                .arg(command, name, absolute, QDir(absolute).filePath(QStringLiteral("data.db"))));
    if (!file.exists() && !QFileInfo(file.absolutePath()).isDir())
        throw ValidationError(
            QStringLiteral("%1 %2: --sqlite %3: the directory %4 does not exist; create it "
                           "first (Tidemark creates a missing target file, not its folders)")
                .arg(command, name, absolute, file.absolutePath()));
    return absolute;
}

// The password a `connection add` / `set-password` was given through --password-prompt (the
// terminal, no echo) or --password-stdin; null when neither option is set.
QString passwordFromOptions(const SubcommandParser &parser, const QString &command, const QString &name) {
    const bool fromStdin = parser.isSet(QStringLiteral("password-stdin"));
    const bool prompt = parser.isSet(QStringLiteral("password-prompt"));
    if (fromStdin && prompt)
        throw ValidationError(
            QStringLiteral("%1 %2: give one of --password-prompt or --password-stdin").arg(command, name));
    if (!fromStdin && !prompt)
        return QString();
    const QString password = fromStdin
                                 ? readPasswordLine()
                                 : promptPassword(QStringLiteral("Password of connection '%1'").arg(name));
    if (password.isEmpty())
        throw ValidationError(QStringLiteral("%1 %2: the password is empty").arg(command, name));
    return password;
}

int connectionAdd(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();

    if (name.trimmed().isEmpty() || name.contains(QLatin1Char(':')))
        throw ValidationError(
            QStringLiteral("connection add: invalid connection name '%1' (empty or with ':')").arg(name));
    const bool isSqlite = parser.isSet(QStringLiteral("sqlite"));
    const bool isPostgres = parser.isSet(QStringLiteral("postgres"));
    const bool isMysql = parser.isSet(QStringLiteral("mysql"));
    if (int(isSqlite) + int(isPostgres) + int(isMysql) != 1)
        throw ValidationError(
            QStringLiteral("connection add %1: give exactly one of --sqlite PATH, --postgres "
                           "CONNINFO or --mysql SETTINGS")
                .arg(name));

    ConnectionSpec spec;
    spec.name = name;
    if (isSqlite) {
        for (const char *option : {"password-env", "password-prompt", "password-stdin"}) {
            if (parser.isSet(QString::fromLatin1(option)))
                throw ValidationError(
                    QStringLiteral("connection add %1: --%2 applies to --postgres and --mysql only")
                        .arg(name, QString::fromLatin1(option)));
        }
        const QString path = parser.value(QStringLiteral("sqlite"));
        if (path.isEmpty())
            throw ValidationError(QStringLiteral("connection add %1: --sqlite needs a PATH").arg(name));
        spec.kind = ConnectionKind::Sqlite;
        spec.path = checkedSqlitePath(path, parser.command(), name);
    } else {
        spec.kind = isMysql ? ConnectionKind::Mysql : ConnectionKind::Postgres;
        spec.conninfo = parser.value(isMysql ? QStringLiteral("mysql") : QStringLiteral("postgres"));
        spec.passwordEnv = parser.value(QStringLiteral("password-env"));
        if (parser.isSet(QStringLiteral("password-env")) && spec.passwordEnv.trimmed().isEmpty())
            throw ValidationError(
                QStringLiteral("connection add %1: --password-env needs a variable name").arg(name));
        try {
            if (isMysql)
                parseMysqlConninfo(name, spec.conninfo);
            else
                checkConninfo(name, spec.conninfo);
        } catch (const ValidationError &) {
            throw;
        } catch (const Error &error) {
            throw ValidationError(error.message());
        }
    }

    QString password;
    if (!isSqlite) {
        password = passwordFromOptions(parser, QStringLiteral("connection add"), name);
        if (!password.isEmpty() && !spec.passwordEnv.isEmpty())
            throw ValidationError(QStringLiteral("connection add %1: --password-env and a stored password "
                                                 "exclude each other (the variable would always win)")
                                      .arg(name));
    }

    if (parser.isSet(QStringLiteral("max-connections")))
        spec.maxConnections = optionCap(parser, QStringLiteral("max-connections"));
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const qint64 id = addCheckedConnection(*workspace, spec, password);
    if (!password.isEmpty())
        logger("cli")->info("stored the password of connection '{}' in the system keychain", str(name));
    writeOut(QStringLiteral("%1\n").arg(id));
    return 0;
}

int connectionEdit(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    const QString command = QStringLiteral("connection edit %1").arg(name);
    const bool isSqlite = parser.isSet(QStringLiteral("sqlite"));
    const bool isPostgres = parser.isSet(QStringLiteral("postgres"));
    const bool isMysql = parser.isSet(QStringLiteral("mysql"));
    if (int(isSqlite) + int(isPostgres) + int(isMysql) > 1)
        throw ValidationError(
            QStringLiteral("%1: give one of --sqlite PATH, --postgres CONNINFO or --mysql SETTINGS")
                .arg(command));
    const bool anyGiven =
        isSqlite || isPostgres || isMysql || parser.isSet(QStringLiteral("password-env")) ||
        parser.isSet(QStringLiteral("name")) || parser.isSet(QStringLiteral("password-prompt")) ||
        parser.isSet(QStringLiteral("password-stdin")) || parser.isSet(QStringLiteral("max-connections"));
    if (!anyGiven)
        throw ValidationError(
            QStringLiteral("%1: nothing to change (see tidemark-cli connection edit --help)").arg(command));

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const std::optional<ConnectionSpec> stored = workspace->connection(name);
    if (!stored)
        throw ValidationError(QStringLiteral("connection edit: connection '%1' does not exist").arg(name));
    ConnectionSpec edited = *stored;
    if (isSqlite) {
        const QString path = parser.value(QStringLiteral("sqlite"));
        if (path.isEmpty())
            throw ValidationError(QStringLiteral("%1: --sqlite needs a PATH").arg(command));
        edited.kind = ConnectionKind::Sqlite;
        edited.path = checkedSqlitePath(path, parser.command(), name);
        edited.conninfo.clear();
        edited.passwordEnv.clear();
    } else if (isPostgres || isMysql) {
        edited.kind = isMysql ? ConnectionKind::Mysql : ConnectionKind::Postgres;
        edited.conninfo = parser.value(isMysql ? QStringLiteral("mysql") : QStringLiteral("postgres"));
        edited.path.clear();
    }
    if (edited.kind == ConnectionKind::Sqlite) {
        for (const char *option : {"password-env", "password-prompt", "password-stdin"}) {
            if (parser.isSet(QString::fromLatin1(option)))
                throw ValidationError(QStringLiteral("%1: --%2 applies to a server connection only")
                                          .arg(command, QString::fromLatin1(option)));
        }
    }
    if (parser.isSet(QStringLiteral("password-env")))
        edited.passwordEnv = parser.value(QStringLiteral("password-env")).trimmed(); // "" removes it
    if (parser.isSet(QStringLiteral("name"))) {
        edited.name = parser.value(QStringLiteral("name"));
        if (edited.name.trimmed().isEmpty() || edited.name.contains(QLatin1Char(':')))
            throw ValidationError(
                QStringLiteral("%1: --name: invalid connection name '%2' (empty or with ':')")
                    .arg(command, edited.name));
    }
    if (parser.isSet(QStringLiteral("max-connections")))
        edited.maxConnections = optionCap(parser, QStringLiteral("max-connections"));
    if (edited.kind != ConnectionKind::Sqlite) {
        try {
            if (edited.kind == ConnectionKind::Mysql)
                parseMysqlConninfo(edited.name, edited.conninfo);
            else
                checkConninfo(edited.name, edited.conninfo);
        } catch (const ValidationError &) {
            throw;
        } catch (const Error &error) {
            throw ValidationError(error.message());
        }
    }
    // A new file or server under the same name: the tables' positions and target state rows
    // describe the old one, so a run would copy on from a position the new one does not hold.
    const bool moved =
        edited.kind != stored->kind || edited.path != stored->path || edited.conninfo != stored->conninfo;
    if (moved && !parser.isSet(QStringLiteral("yes"))) {
        if (const QStringList users = tablesUsingConnection(*workspace, name); !users.isEmpty())
            throw ValidationError(
                QStringLiteral("%1: %2 use it, and their positions describe what the old %3 holds; pass "
                               "--yes if it is the same data at a new address")
                    .arg(command, users.join(QStringLiteral(", ")),
                         stored->kind == ConnectionKind::Sqlite ? QStringLiteral("file")
                                                                : QStringLiteral("server")));
    }
    QString password;
    if (edited.kind != ConnectionKind::Sqlite) {
        password = passwordFromOptions(parser, QStringLiteral("connection edit"), name);
        if (!password.isEmpty() && !edited.passwordEnv.isEmpty())
            throw ValidationError(
                QStringLiteral("%1: --password-env and a stored password exclude each other "
                               "(the variable would always win)")
                    .arg(command));
    }
    updateCheckedConnection(*workspace, edited, password);
    writeOut(
        QStringLiteral("connection '%1' changed%2\n")
            .arg(name, edited.name != name ? QStringLiteral(" (now '%1')").arg(edited.name) : QString()));
    return 0;
}

// Only the connection's cap: no address, no password, nothing a run's position depends on.
int connectionSet(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    if (!parser.isSet(QStringLiteral("max-connections")))
        throw ValidationError(
            QStringLiteral("connection set %1: nothing to change (--max-connections N|none)").arg(name));
    const int cap = optionCap(parser, QStringLiteral("max-connections"));
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(QStringLiteral("connection set: connection '%1' does not exist").arg(name));
    spec->maxConnections = cap;
    workspace->updateConnection(*spec);
    writeOut(
        cap == 0
            ? QStringLiteral("connection '%1': no cap on its iterations at once\n").arg(name)
            : QStringLiteral("connection '%1': at most %2 iteration(s) at once use it\n").arg(name).arg(cap));
    return 0;
}

int connectionRemove(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(QStringLiteral("connection remove: connection '%1' does not exist").arg(name));
    // A removed table still needs its connections to be restored, or purged (its target's state
    // row is cleared through them).
    QList<qint64> removed;
    if (const QStringList users = tablesUsingConnection(*workspace, name, &removed); !users.isEmpty())
        throw ValidationError(
            QStringLiteral("connection remove %1: %2 use it; remove those tables first (table remove ID)%3")
                .arg(name, users.join(QStringLiteral(", ")),
                     removed.isEmpty() ? QString()
                                       : QStringLiteral(" and purge the removed ones (table purge ID)")));
    workspace->removeConnection(name);
    if (spec->kind != ConnectionKind::Sqlite) {
        try {
            CredentialStore::forgetPassword(*spec);
        } catch (const Error &error) {
            writeError(QStringLiteral("warning: connection '%1' is removed, but its password could not be "
                                      "removed from the system keychain: %2")
                           .arg(name, error.message()));
        }
    }
    writeOut(QStringLiteral("connection '%1' removed\n").arg(name));
    return 0;
}

int connectionTest(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(QStringLiteral("connection test: connection '%1' does not exist").arg(name));
    const bool sqlite = spec->kind == ConnectionKind::Sqlite;
    const QString where = sqlite ? QStringLiteral("SQLite file %1").arg(spec->path)
                          : spec->kind == ConnectionKind::Mysql
                              ? QStringLiteral("MySQL '%1'").arg(spec->conninfo)
                              : QStringLiteral("PostgreSQL '%1'").arg(spec->conninfo);
    if (sqlite && !QFileInfo::exists(spec->path)) {
        // Opening would create it; a target's file is created by its first run, a source's must exist.
        if (!QFileInfo(QFileInfo(spec->path).absolutePath()).isDir()) {
            writeError(
                QStringLiteral("connection test %1: %2: its directory does not exist").arg(name, where));
            return 1;
        }
        writeOut(QStringLiteral("ok: connection '%1': %2 does not exist yet; a run creates it when it first "
                                "writes there (as a source it has no tables)\n")
                     .arg(name, where));
        return 0;
    }
    qsizetype tables = 0;
    try {
        tables = openConnector(*spec)->listTables().size();
    } catch (const Error &error) {
        writeError(QStringLiteral("connection test %1: %2: %3").arg(name, where, error.message()));
        return 1;
    }
    writeOut(QStringLiteral("ok: connection '%1': %2, %3 tables\n").arg(name, where).arg(tables));
    return 0;
}

int connectionSetPassword(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(
            QStringLiteral("connection set-password: connection '%1' does not exist").arg(name));
    if (spec->kind == ConnectionKind::Sqlite)
        throw ValidationError(
            QStringLiteral("connection set-password %1: only a PostgreSQL or MySQL connection has a password")
                .arg(name));
    QString password = passwordFromOptions(parser, QStringLiteral("connection set-password"), name);
    if (password.isNull()) // neither option: ask on the terminal
        password = promptPassword(QStringLiteral("Password of connection '%1'").arg(name));
    if (password.isEmpty())
        throw ValidationError(QStringLiteral("connection set-password %1: the password is empty").arg(name));
    CredentialStore::savePassword(*spec, password);
    logger("cli")->info("stored the password of connection '{}' in the system keychain", str(name));
    QString note;
    if (!spec->passwordEnv.isEmpty())
        note = QStringLiteral(" (while $%1 is set, --password-env still wins)").arg(spec->passwordEnv);
    writeOut(
        QStringLiteral("stored the password of connection '%1' in the system keychain%2\n").arg(name, note));
    return 0;
}

int connectionForgetPassword(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();

    const std::optional<ConnectionSpec> spec = session.openWorkspace()->connection(name);
    if (!spec)
        throw ValidationError(
            QStringLiteral("connection forget-password: connection '%1' does not exist").arg(name));
    if (CredentialStore::forgetPassword(*spec)) {
        logger("cli")->info("removed the password of connection '{}' from the system keychain", str(name));
        writeOut(
            QStringLiteral("removed the password of connection '%1' from the system keychain\n").arg(name));
    } else {
        writeOut(QStringLiteral("connection '%1' had no password in the system keychain\n").arg(name));
    }
    return 0;
}

int connectionList(CliSession &session, const SubcommandParser &parser) {
    const QList<ConnectionSpec> connections = session.openWorkspace()->connections();
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const ConnectionSpec &spec : connections)
            array.append(connectionJson(spec));
        writeOut(toJsonLine(array));
    } else {
        writeOut(connectionsText(connections));
    }
    return 0;
}
const QList<OptionSpec> kPasswordOptions{
    {QStringLiteral("password-env"), QStringLiteral("VAR"),
     QStringLiteral("the environment variable that holds the password (\"\" removes it)")},
    {QStringLiteral("password-prompt"),
     {},
     QStringLiteral("asks for the password; stored in the system keychain")},
    {QStringLiteral("password-stdin"),
     {},
     QStringLiteral("reads the password from stdin; stored in the system keychain")},
};

const OptionSpec kMaxConnectionsOption{
    QStringLiteral("max-connections"), QStringLiteral("N"),
    QStringLiteral("iterations using the connection at once, across every process (none: no cap)")};

const OptionSpec kSqliteOption{QStringLiteral("sqlite"), QStringLiteral("PATH"),
                               QStringLiteral("a SQLite file")};
const OptionSpec kPostgresOption{
    QStringLiteral("postgres"), QStringLiteral("CONNINFO"),
    QStringLiteral("a PostgreSQL server, as libpq takes it (no password inside)")};
const OptionSpec kMysqlOption{QStringLiteral("mysql"), QStringLiteral("SETTINGS"),
                              QStringLiteral("a MySQL or MariaDB server: 'host=H port=P user=U dbname=D "
                                             "[socket=PATH] [sslmode=MODE]' (no password inside)")};

} // namespace

QList<CommandSpec> connectionCommands() {
    const QString name = QStringLiteral("NAME");
    return {
        {.name = QStringLiteral("connection add"),
         .usage = QStringLiteral(
             R"(  connection add NAME --sqlite PATH      PATH's folder must exist; a missing file is created when
                                         first written, as open as its source (0600 from a server)
  connection add NAME --postgres CONNINFO [--password-env VAR | --password-prompt | --password-stdin]
                                         --password-prompt/--password-stdin store the password in
                                         the system keychain (never in the workspace)
  connection add NAME --mysql 'host=H port=P user=U dbname=D [socket=PATH] [sslmode=MODE]'
                  [the password options of --postgres]   a MySQL or MariaDB server
  connection add NAME ... --max-connections N
                                         at most N iterations (as source or target) use it at once,
                                         across every process and machine of the workspace)"),
         .options = QList<OptionSpec>{kSqliteOption, kPostgresOption, kMysqlOption} + kPasswordOptions +
                    QList<OptionSpec>{kMaxConnectionsOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionAdd},
        {.name = QStringLiteral("connection edit"),
         .usage = QStringLiteral(
             R"(  connection edit NAME [--sqlite PATH | --postgres CONNINFO | --mysql SETTINGS] [--password-env VAR | --password-prompt |
                  --password-stdin] [--name NEW] [--max-connections N|none] [--yes]
                                         only the options given change (--password-env "" removes
                                         it); a new file or server for a connection that tables use
                                         needs --yes: their positions describe what the old one holds)"),
         .options =
             QList<OptionSpec>{kSqliteOption, kPostgresOption, kMysqlOption} + kPasswordOptions +
             QList<OptionSpec>{
                 {QStringLiteral("name"), QStringLiteral("NEW"), QStringLiteral("renames the connection")},
                 {QStringLiteral("yes"), {}, QStringLiteral("moves a connection that tables use")},
                 kMaxConnectionsOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionEdit},
        {.name = QStringLiteral("connection set"),
         .usage = QStringLiteral(
             R"(  connection set NAME --max-connections N|none
                                         caps the iterations using it at once (as source or target),
                                         across every run, process and machine of the workspace; the
                                         others wait queued, saying so)"),
         .options = {kMaxConnectionsOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionSet},
        {.name = QStringLiteral("connection remove"),
         .usage = QStringLiteral(
             R"(  connection remove NAME                 refused while a table, live or removed, uses it)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionRemove},
        {.name = QStringLiteral("connection test"),
         .usage = QStringLiteral(
             R"(  connection test NAME                   opens it: "ok" and the file or server (exit 0), or the
                                         error (exit 1))"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionTest},
        {.name = QStringLiteral("connection set-password"),
         .usage = QStringLiteral(
             R"(  connection set-password NAME [--password-prompt | --password-stdin]   the terminal by default)"),
         .options = kPasswordOptions.mid(1),
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionSetPassword},
        {.name = QStringLiteral("connection forget-password"),
         .usage = QStringLiteral(
             R"(  connection forget-password NAME        removes the connection's password from the keychain)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = connectionForgetPassword},
        {.name = QStringLiteral("connection list"),
         .usage = QStringLiteral(R"(  connection list [--json])"),
         .options = {kJsonOption},
         .handler = connectionList},
    };
}

} // namespace tidemark::cli
