// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"

#include "app/cli/jsonformat.h"
#include "app/cli/passwordinput.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/connectors/conninfo.h"
#include "model/credentials/credentialstore.h"
#include "model/engine/backfill.h"
#include "model/engine/runcoordinator.h"
#include "model/engine/tablesetup.h"
#include "model/engine/verifier.h"
#include "model/storage/workspace.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QMetaType>
#include <QTimer>

#include <atomic>
#include <csignal>
#include <cstdio>

namespace tidemark::cli {

namespace {

const char *const usageText =
    R"(Usage: tidemark-cli [-w FILE | --workspace FILE] COMMAND ...   (env TIDEMARK_WORKSPACE as fallback)

Commands:
  init                                   create an empty workspace; refuses to overwrite a file
  connection add NAME --sqlite PATH
  connection add NAME --postgres CONNINFO [--password-env VAR | --password-prompt | --password-stdin]
                                         --password-prompt/--password-stdin store the password in
                                         the system keychain (never in the workspace)
  connection set-password NAME [--password-prompt | --password-stdin]   the terminal by default
  connection forget-password NAME        removes the connection's password from the keychain
  connection list [--json]
  table add --source CONN:TABLE --target CONN:TABLE --watermark COL
            [--tiebreak COL] [--key COL[,COL...]] [--mode append|merge|overwrite]
            [--lookback VALUE] [--initial-watermark VALUE] [--max-skipped N]
            [--expect-rows] [--paused] [--commit-per-batch] [--batch-size N]
            [--add-new-columns]           prints the new table's id alone on stdout
  table list [--json] [--archived]    --archived lists the removed tables instead
  table pause ID | table resume ID | table remove ID
  table restore ID                    brings a removed table back, same id and position
  run [--table ID]... [--concurrency N] [--dry-run] [--json] [--trigger cli|schedule]
  backfill ID --from VALUE (--keep | --delete-newer | --truncate) [--yes] [--json]
  history [--run RUN_ID] [--limit N] [--json]
  verify [--table ID]... [--json]

A PostgreSQL password is taken from --password-env VAR if given, else from the system keychain
(service "Tidemark"), else libpq reads ~/.pgpass or a service file. TIDEMARK_NO_KEYCHAIN=1 skips
the keychain.

Exit codes: 0 fine; 1 an iteration failed or was cancelled, or verify found a difference;
2 usage or validation error (nothing was run).
)";

// Thrown by a subcommand's -h/--help: prints the usage and exits 0.
struct HelpRequested {};

void writeOut(const QByteArray &bytes) {
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void writeOut(const QString &text) {
    writeOut(text.toUtf8());
}

// Only line breaks go: names in the message (tables, columns) keep their exact spacing.
QString oneLine(const QString &message) {
    QString line = message.trimmed();
    line.replace(QLatin1String("\r\n"), QLatin1String(" "));
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    line.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return line;
}

// Every error is exactly one line on stderr.
void writeError(const QString &message) {
    const QString line = oneLine(message);
    const QByteArray bytes = (QStringLiteral("tidemark-cli: ") + line + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

// A QCommandLineParser per subcommand; every failure is a ValidationError naming the option.
class SubcommandParser {
public:
    explicit SubcommandParser(const QString &command)
        : m_command(command) {
        m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
        addValue({QStringLiteral("w"), QStringLiteral("workspace")}, QStringLiteral("FILE"));
        m_parser.addOption(QCommandLineOption(QStringList{QStringLiteral("h"), QStringLiteral("help")}));
    }

    void addFlag(const QString &name) { m_parser.addOption(QCommandLineOption(name)); }
    void addValue(const QStringList &names, const QString &valueName) {
        m_parser.addOption(QCommandLineOption(names, QString(), valueName));
    }
    void addValue(const QString &name, const QString &valueName) { addValue(QStringList{name}, valueName); }

    // Returns the positional arguments; refuses unknown options and a wrong argument count.
    QStringList parse(const QStringList &args, qsizetype minPositional, qsizetype maxPositional,
                      const QString &positionalName = QString()) {
        if (!m_parser.parse(QStringList{QStringLiteral("tidemark-cli")} + args))
            throw ValidationError(m_command + QStringLiteral(": ") + m_parser.errorText());
        if (m_parser.isSet(QStringLiteral("help")))
            throw HelpRequested{};
        const QStringList positional = m_parser.positionalArguments();
        if (positional.size() < minPositional)
            throw ValidationError(QStringLiteral("%1: missing %2").arg(m_command, positionalName));
        if (positional.size() > maxPositional)
            throw ValidationError(QStringLiteral("%1: unexpected argument '%2'")
                                      .arg(m_command, positional.value(maxPositional)));
        return positional;
    }

    bool isSet(const QString &name) const { return m_parser.isSet(name); }
    QString value(const QString &name) const { return m_parser.value(name); }
    QStringList values(const QString &name) const { return m_parser.values(name); }
    // The value of a required option.
    QString required(const QString &name) const {
        if (!m_parser.isSet(name))
            throw ValidationError(QStringLiteral("%1: option --%2 is required").arg(m_command, name));
        return m_parser.value(name);
    }

private:
    QString m_command;
    QCommandLineParser m_parser;
};

qint64 parseInteger(const QString &text, const QString &what, qint64 minimum) {
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    if (!ok || value < minimum)
        throw ValidationError(
            QStringLiteral("%1: '%2' is not an integer >= %3").arg(what, text).arg(minimum));
    return value;
}

qint64 parseTableId(const QString &text) {
    return parseInteger(text, QStringLiteral("table ID"), 1);
}

QList<qint64> parseTableIds(const QStringList &texts) {
    QList<qint64> ids;
    for (const QString &text : texts) {
        const qint64 id = parseInteger(text, QStringLiteral("--table"), 1);
        if (!ids.contains(id))
            ids.append(id);
    }
    return ids;
}

[[noreturn]] void throwNoSuchTable(Workspace &workspace, qint64 id) {
    throw ValidationError(
        QStringLiteral("table %1: no such table in workspace %2").arg(id).arg(workspace.path()));
}

// A live table; a removed one is named, with how to bring it back.
TableSpec requireTable(Workspace &workspace, qint64 id) {
    if (const std::optional<TableSpec> spec = workspace.table(id))
        return *spec;
    if (const std::optional<TableSpec> removed = workspace.archivedTable(id))
        throw ValidationError(
            QStringLiteral("table %1 (%2 -> %3) is removed; restore it with: tidemark-cli -w %4 "
                           "table restore %1")
                .arg(id)
                .arg(removed->sourceDisplay(), removed->targetDisplay(), workspace.path()));
    throwNoSuchTable(workspace, id);
}

// CONN:TABLE splits at the first colon; TABLE is kept verbatim.
QPair<QString, QString> splitConnTable(const QString &text, const QString &option) {
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0 || colon + 1 >= text.size())
        throw ValidationError(QStringLiteral("%1: '%2' is not CONN:TABLE").arg(option, text));
    return {text.left(colon), text.mid(colon + 1)};
}

// Set by SIGINT/SIGTERM; polled on the event loop, because a signal handler may do nothing else.
std::atomic_int g_signal{0};

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

extern "C" void onTerminationSignal(int signal) {
    g_signal.store(signal);
    // A second signal while the run rolls back kills the process the usual way.
    std::signal(signal, SIG_DFL);
}

int exitCodeOf(const RunRecord &run) {
    for (const IterationRecord &record : run.iterations) {
        if (isFailure(record.status))
            return 1;
    }
    return run.status == QLatin1String("failed") || run.status == QLatin1String("cancelled") ? 1 : 0;
}

} // namespace

int Commands::execute(const QStringList &arguments) {
    try {
        const QStringList args = arguments.mid(1);
        qsizetype i = 0;
        for (; i < args.size() && args[i].startsWith(QLatin1Char('-')); ++i) {
            const QString &arg = args[i];
            if (arg == QLatin1String("-w") || arg == QLatin1String("--workspace")) {
                if (i + 1 >= args.size())
                    throw ValidationError(QStringLiteral("option %1 needs a FILE").arg(arg));
                m_workspace = args[++i];
            } else if (arg.startsWith(QLatin1String("--workspace="))) {
                m_workspace = arg.mid(12);
            } else if (arg.startsWith(QLatin1String("-w")) && !arg.startsWith(QLatin1String("--"))) {
                m_workspace = arg.mid(2);
            } else if (arg == QLatin1String("--version") || arg == QLatin1String("-v")) {
                writeOut(QStringLiteral("tidemark-cli %1\n").arg(QStringLiteral(TIDEMARK_VERSION)));
                return 0;
            } else if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
                writeOut(QByteArray(usageText));
                return 0;
            } else if (arg == QLatin1String("--")) {
                ++i;
                break;
            } else {
                throw ValidationError(
                    QStringLiteral("unknown option '%1' (see tidemark-cli --help)").arg(arg));
            }
        }
        if (i >= args.size())
            throw ValidationError(QStringLiteral("no command given (see tidemark-cli --help)"));
        return dispatch(args[i], args.mid(i + 1));
    } catch (const HelpRequested &) {
        writeOut(QByteArray(usageText));
        return 0;
    } catch (const ValidationError &error) {
        writeError(error.message());
        return 2;
    } catch (const Error &error) {
        writeError(error.message());
        return 1;
    } catch (const std::exception &error) {
        writeError(QString::fromLocal8Bit(error.what()));
        return 1;
    }
}

int Commands::dispatch(const QString &command, const QStringList &rest) {
    if (command == QLatin1String("init"))
        return init(rest);
    if (command == QLatin1String("run"))
        return run(rest);
    if (command == QLatin1String("backfill"))
        return backfill(rest);
    if (command == QLatin1String("history"))
        return history(rest);
    if (command == QLatin1String("verify"))
        return verify(rest);
    if (command == QLatin1String("help"))
        throw HelpRequested{};
    if (command == QLatin1String("connection") || command == QLatin1String("table")) {
        const QString sub = rest.value(0);
        const QStringList subArgs = rest.mid(1);
        if (command == QLatin1String("connection")) {
            if (sub == QLatin1String("add"))
                return connectionAdd(subArgs);
            if (sub == QLatin1String("list"))
                return connectionList(subArgs);
            if (sub == QLatin1String("set-password"))
                return connectionSetPassword(subArgs);
            if (sub == QLatin1String("forget-password"))
                return connectionForgetPassword(subArgs);
        } else {
            if (sub == QLatin1String("add"))
                return tableAdd(subArgs);
            if (sub == QLatin1String("list"))
                return tableList(subArgs);
            if (sub == QLatin1String("pause"))
                return tableSetActive(subArgs, QStringLiteral("table pause"), false);
            if (sub == QLatin1String("resume"))
                return tableSetActive(subArgs, QStringLiteral("table resume"), true);
            if (sub == QLatin1String("remove"))
                return tableRemove(subArgs);
            if (sub == QLatin1String("restore"))
                return tableRestore(subArgs);
        }
        if (sub.isEmpty())
            throw ValidationError(
                QStringLiteral("%1: missing subcommand (see tidemark-cli --help)").arg(command));
        throw ValidationError(
            QStringLiteral("%1: unknown subcommand '%2' (see tidemark-cli --help)").arg(command, sub));
    }
    throw ValidationError(QStringLiteral("unknown command '%1' (see tidemark-cli --help)").arg(command));
}

QString Commands::workspacePath() const {
    QString path = m_workspace;
    if (path.isEmpty())
        path = qEnvironmentVariable("TIDEMARK_WORKSPACE");
    if (path.isEmpty())
        throw ValidationError(QStringLiteral("no workspace: pass -w FILE or set TIDEMARK_WORKSPACE"));
    return QFileInfo(path).absoluteFilePath();
}

void Commands::installLogging(const QString &path) {
    if (m_loggingInstalled)
        return;
    m_loggingInstalled = true;
    try {
        installLogSinks(path, true);
    } catch (const std::exception &error) {
        // A log file we cannot write must not stop an operator's command.
        writeError(QStringLiteral("warning: no log file beside %1: %2")
                       .arg(path, QString::fromLocal8Bit(error.what())));
    }
}

std::unique_ptr<Workspace> Commands::openWorkspace() {
    const QString path = workspacePath();
    if (!QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 does not exist (create it with: tidemark-cli -w %1 init)")
                .arg(path));
    installLogging(path);
    try {
        std::unique_ptr<Workspace> workspace = Workspace::open(path);
        workspace->repairInterruptedRuns();
        return workspace;
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        // A workspace that cannot be opened is a bad argument: nothing ran.
        throw ValidationError(error.message());
    }
}

int Commands::init(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("init"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const QString path = workspacePath();
    if (QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 already exists; refusing to overwrite it").arg(path));
    try {
        Workspace::create(path);
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        throw ValidationError(error.message());
    }
    installLogging(path);
    logger("cli")->info("created workspace {}", str(path));
    writeOut(QStringLiteral("created workspace %1\n").arg(path));
    return 0;
}

int Commands::connectionAdd(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection add"));
    parser.addValue(QStringLiteral("sqlite"), QStringLiteral("PATH"));
    parser.addValue(QStringLiteral("postgres"), QStringLiteral("CONNINFO"));
    parser.addValue(QStringLiteral("password-env"), QStringLiteral("VAR"));
    parser.addFlag(QStringLiteral("password-prompt"));
    parser.addFlag(QStringLiteral("password-stdin"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    if (name.trimmed().isEmpty() || name.contains(QLatin1Char(':')))
        throw ValidationError(
            QStringLiteral("connection add: invalid connection name '%1' (empty or with ':')").arg(name));
    const bool isSqlite = parser.isSet(QStringLiteral("sqlite"));
    const bool isPostgres = parser.isSet(QStringLiteral("postgres"));
    if (isSqlite == isPostgres)
        throw ValidationError(
            QStringLiteral("connection add %1: give exactly one of --sqlite PATH or --postgres CONNINFO")
                .arg(name));

    ConnectionSpec spec;
    spec.name = name;
    if (isSqlite) {
        for (const char *option : {"password-env", "password-prompt", "password-stdin"}) {
            if (parser.isSet(QString::fromLatin1(option)))
                throw ValidationError(QStringLiteral("connection add %1: --%2 applies to --postgres only")
                                          .arg(name, QString::fromLatin1(option)));
        }
        const QString path = parser.value(QStringLiteral("sqlite"));
        if (path.isEmpty())
            throw ValidationError(QStringLiteral("connection add %1: --sqlite needs a PATH").arg(name));
        spec.kind = ConnectionKind::Sqlite;
        // Relative to where the operator typed it, not to wherever a later run starts.
        spec.path = QFileInfo(path).absoluteFilePath();
    } else {
        spec.kind = ConnectionKind::Postgres;
        spec.conninfo = parser.value(QStringLiteral("postgres"));
        spec.passwordEnv = parser.value(QStringLiteral("password-env"));
        if (parser.isSet(QStringLiteral("password-env")) && spec.passwordEnv.trimmed().isEmpty())
            throw ValidationError(
                QStringLiteral("connection add %1: --password-env needs a variable name").arg(name));
        try {
            checkConninfo(name, spec.conninfo);
        } catch (const ValidationError &) {
            throw;
        } catch (const Error &error) {
            throw ValidationError(error.message());
        }
    }

    QString password;
    if (isPostgres) {
        password = passwordFromOptions(parser, QStringLiteral("connection add"), name);
        if (!password.isEmpty() && !spec.passwordEnv.isEmpty())
            throw ValidationError(QStringLiteral("connection add %1: --password-env and a stored password "
                                                 "exclude each other (the variable would always win)")
                                      .arg(name));
    }

    std::unique_ptr<Workspace> workspace = openWorkspace();
    const qint64 id = addCheckedConnection(*workspace, spec, password);
    if (!password.isEmpty())
        logger("cli")->info("stored the password of connection '{}' in the system keychain", str(name));
    writeOut(QStringLiteral("%1\n").arg(id));
    return 0;
}

int Commands::connectionSetPassword(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection set-password"));
    parser.addFlag(QStringLiteral("password-prompt"));
    parser.addFlag(QStringLiteral("password-stdin"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(
            QStringLiteral("connection set-password: connection '%1' does not exist").arg(name));
    if (spec->kind != ConnectionKind::Postgres)
        throw ValidationError(
            QStringLiteral("connection set-password %1: only a PostgreSQL connection has a password")
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

int Commands::connectionForgetPassword(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection forget-password"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    const std::optional<ConnectionSpec> spec = openWorkspace()->connection(name);
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

int Commands::connectionList(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection list"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    const QList<ConnectionSpec> connections = openWorkspace()->connections();
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

int Commands::tableAdd(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table add"));
    for (const char *name : {"source", "target"})
        parser.addValue(QString::fromLatin1(name), QStringLiteral("CONN:TABLE"));
    for (const char *name : {"watermark", "tiebreak"})
        parser.addValue(QString::fromLatin1(name), QStringLiteral("COL"));
    parser.addValue(QStringLiteral("key"), QStringLiteral("COL[,COL...]"));
    parser.addValue(QStringLiteral("mode"), QStringLiteral("MODE"));
    parser.addValue(QStringLiteral("lookback"), QStringLiteral("VALUE"));
    parser.addValue(QStringLiteral("initial-watermark"), QStringLiteral("VALUE"));
    parser.addValue(QStringLiteral("max-skipped"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("batch-size"), QStringLiteral("N"));
    for (const char *name : {"expect-rows", "paused", "commit-per-batch", "add-new-columns"})
        parser.addFlag(QString::fromLatin1(name));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    TableDraft draft;
    TableSpec &spec = draft.spec;
    std::tie(spec.sourceConnection, spec.sourceTable) =
        splitConnTable(parser.required(QStringLiteral("source")), QStringLiteral("--source"));
    std::tie(spec.targetConnection, spec.targetTable) =
        splitConnTable(parser.required(QStringLiteral("target")), QStringLiteral("--target"));

    if (parser.isSet(QStringLiteral("mode"))) {
        const QString modeText = parser.value(QStringLiteral("mode"));
        const std::optional<WriteMode> mode = writeModeFromName(modeText);
        if (!mode)
            throw ValidationError(
                QStringLiteral("--mode: unknown mode '%1' (use append, merge or overwrite)").arg(modeText));
        spec.mode = *mode;
    }
    spec.watermarkColumn = parser.value(QStringLiteral("watermark"));
    if (spec.watermarkColumn.isEmpty() && spec.mode != WriteMode::Overwrite)
        throw ValidationError(
            QStringLiteral("table add %1: --watermark COL is required (except with --mode overwrite)")
                .arg(spec.sourceDisplay()));
    spec.tiebreakColumn = parser.value(QStringLiteral("tiebreak"));
    if (parser.isSet(QStringLiteral("key"))) {
        for (const QString &part : parser.value(QStringLiteral("key")).split(QLatin1Char(','))) {
            if (!part.trimmed().isEmpty())
                spec.keyColumns.append(part.trimmed());
        }
        if (spec.keyColumns.isEmpty())
            throw ValidationError(QStringLiteral("--key: no column given"));
    }
    spec.lookback = parser.value(QStringLiteral("lookback"));
    if (parser.isSet(QStringLiteral("max-skipped")))
        spec.maxSkipped =
            parseInteger(parser.value(QStringLiteral("max-skipped")), QStringLiteral("--max-skipped"), 0);
    if (parser.isSet(QStringLiteral("batch-size")))
        spec.batchSize =
            int(parseInteger(parser.value(QStringLiteral("batch-size")), QStringLiteral("--batch-size"), 1));
    spec.expectRows = parser.isSet(QStringLiteral("expect-rows"));
    spec.active = !parser.isSet(QStringLiteral("paused"));
    spec.commitPerBatch = parser.isSet(QStringLiteral("commit-per-batch"));
    spec.addNewColumns = parser.isSet(QStringLiteral("add-new-columns"));
    draft.initialWatermarkText = parser.value(QStringLiteral("initial-watermark"));
    if (parser.isSet(QStringLiteral("initial-watermark")) && draft.initialWatermarkText.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("--initial-watermark: empty value"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    TableSpec prepared;
    try {
        prepared = prepareTable(*workspace, draft);
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        // The source could not be inspected: the table is refused, nothing was added.
        throw ValidationError(error.message());
    }
    const qint64 id = workspace->addTable(prepared);
    writeOut(QStringLiteral("%1\n").arg(id));
    return 0;
}

int Commands::tableList(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table list"));
    parser.addFlag(QStringLiteral("json"));
    parser.addFlag(QStringLiteral("archived"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    const QList<TableSpec> tables =
        parser.isSet(QStringLiteral("archived")) ? workspace->archivedTables() : workspace->tables();
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const TableSpec &spec : tables)
            array.append(tableJson(spec));
        writeOut(toJsonLine(array));
    } else {
        writeOut(tablesText(tables));
    }
    return 0;
}

int Commands::tableSetActive(const QStringList &args, const QString &command, bool active) {
    SubcommandParser parser(command);
    const qint64 id = parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    workspace->setActive(id, active);
    return 0;
}

int Commands::tableRemove(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table remove"));
    const qint64 id = parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    workspace->removeTable(id);
    return 0;
}

int Commands::tableRestore(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table restore"));
    const qint64 id = parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    if (workspace->table(id))
        throw ValidationError(QStringLiteral("table %1 is not removed; nothing to restore").arg(id));
    if (!workspace->archivedTable(id))
        throwNoSuchTable(*workspace, id);
    workspace->restoreTable(id);
    return 0;
}

int Commands::run(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("run"));
    parser.addValue(QStringLiteral("table"), QStringLiteral("ID"));
    parser.addValue(QStringLiteral("concurrency"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("trigger"), QStringLiteral("TRIGGER"));
    parser.addFlag(QStringLiteral("dry-run"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    RunRequest request;
    request.trigger = QStringLiteral("cli");
    request.dryRun = parser.isSet(QStringLiteral("dry-run"));
    request.tableIds = parseTableIds(parser.values(QStringLiteral("table")));
    if (parser.isSet(QStringLiteral("concurrency")))
        request.concurrency = int(
            parseInteger(parser.value(QStringLiteral("concurrency")), QStringLiteral("--concurrency"), 1));
    if (parser.isSet(QStringLiteral("trigger"))) {
        request.trigger = parser.value(QStringLiteral("trigger"));
        if (request.trigger != QLatin1String("cli") && request.trigger != QLatin1String("schedule"))
            throw ValidationError(
                QStringLiteral("--trigger: '%1' is not cli or schedule").arg(request.trigger));
    }
    const bool json = parser.isSet(QStringLiteral("json"));

    const QString path = workspacePath();
    {
        // Refuse unknown tables before anything runs.
        std::unique_ptr<Workspace> workspace = openWorkspace();
        for (qint64 id : request.tableIds)
            requireTable(*workspace, id);
    }

    qRegisterMetaType<tidemark::IterationRecord>("tidemark::IterationRecord");
    qRegisterMetaType<QList<tidemark::IterationRecord>>("QList<tidemark::IterationRecord>");
    qRegisterMetaType<tidemark::RunRecord>("tidemark::RunRecord");
    qRegisterMetaType<tidemark::LogLine>("tidemark::LogLine");

    RunCoordinator coordinator(path);
    bool done = false;
    int exitCode = 1;
    // The last state of each iteration, in case the finished record comes without them.
    QList<IterationRecord> latest;

    QObject::connect(&coordinator, &RunCoordinator::iterationChanged, [&](const IterationRecord &record) {
        for (IterationRecord &known : latest) {
            if (known.id == record.id && known.tableId == record.tableId) {
                known = record;
                return;
            }
        }
        latest.append(record);
    });
    QObject::connect(&coordinator, &RunCoordinator::runFinished, [&](const RunRecord &finished) {
        if (done)
            return;
        RunRecord run = finished;
        if (run.iterations.isEmpty() && !latest.isEmpty())
            run.iterations = latest;
        // No extra stderr line per failed iteration: the core logs each failure once to stderr
        // (installLogSinks), and every error is to be one line.
        if (json)
            writeOut(toJsonLine(runJson(run, false)));
        else
            writeOut(runText(run));
        exitCode = exitCodeOf(run);
        done = true;
        QCoreApplication::exit(exitCode);
    });
    QObject::connect(&coordinator, &RunCoordinator::runFailedToStart, [&](const QString &error) {
        if (done)
            return;
        writeError(error);
        exitCode = 1;
        done = true;
        QCoreApplication::exit(exitCode);
    });

    g_signal.store(0);
    std::signal(SIGINT, onTerminationSignal);
    std::signal(SIGTERM, onTerminationSignal);
    bool cancelRequested = false;
    QTimer signalPoll;
    signalPoll.setInterval(100);
    QObject::connect(&signalPoll, &QTimer::timeout, [&] {
        const int signal = g_signal.load();
        if (signal == 0 || cancelRequested)
            return;
        cancelRequested = true;
        writeError(QStringLiteral("interrupted (signal %1): cancelling the run; running iterations roll back")
                       .arg(signal));
        coordinator.cancel();
    });
    signalPoll.start();

    if (coordinator.start(request) && !done)
        QCoreApplication::exec();
    signalPoll.stop();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (!done) {
        writeError(QStringLiteral("run did not start in workspace %1").arg(path));
        return 1;
    }
    return exitCode;
}

int Commands::backfill(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("backfill"));
    parser.addValue(QStringLiteral("from"), QStringLiteral("VALUE"));
    for (const char *name : {"keep", "delete-newer", "truncate", "yes", "json"})
        parser.addFlag(QString::fromLatin1(name));
    const qint64 id = parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    BackfillRequest request;
    request.tableId = id;
    request.fromText = parser.required(QStringLiteral("from"));
    int actions = 0;
    if (parser.isSet(QStringLiteral("keep"))) {
        request.action = BackfillTargetAction::Keep;
        ++actions;
    }
    if (parser.isSet(QStringLiteral("delete-newer"))) {
        request.action = BackfillTargetAction::DeleteNewer;
        ++actions;
    }
    if (parser.isSet(QStringLiteral("truncate"))) {
        request.action = BackfillTargetAction::Truncate;
        ++actions;
    }
    if (actions != 1)
        throw ValidationError(
            QStringLiteral("backfill %1: choose exactly one of --keep, --delete-newer or --truncate")
                .arg(id));
    request.confirmDuplicates = parser.isSet(QStringLiteral("yes"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    const BackfillResult result = runBackfill(*workspace, request);
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(backfillJson(id, result)));
    } else {
        QString line = QStringLiteral("table %1: watermark %2 -> %3")
                           .arg(id)
                           .arg(result.before.isNull() ? QStringLiteral("(none)") : result.before.display(),
                                result.after.isNull() ? QStringLiteral("(none)") : result.after.display());
        if (request.action == BackfillTargetAction::DeleteNewer)
            line += QStringLiteral("; %1 target row(s) deleted").arg(result.rowsDeleted);
        else if (request.action == BackfillTargetAction::Truncate)
            line += QStringLiteral("; target truncated");
        writeOut(line + QLatin1Char('\n'));
    }
    return 0;
}

int Commands::history(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("history"));
    parser.addValue(QStringLiteral("run"), QStringLiteral("RUN_ID"));
    parser.addValue(QStringLiteral("limit"), QStringLiteral("N"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    qint64 runId = 0;
    if (parser.isSet(QStringLiteral("run")))
        runId = parseInteger(parser.value(QStringLiteral("run")), QStringLiteral("--run"), 1);
    int limit = 0;
    if (parser.isSet(QStringLiteral("limit")))
        limit = int(parseInteger(parser.value(QStringLiteral("limit")), QStringLiteral("--limit"), 1));

    const QList<RunRecord> runs = openWorkspace()->runs(limit, runId);
    if (runId > 0 && runs.isEmpty())
        throw ValidationError(
            QStringLiteral("--run: no run %1 in workspace %2").arg(runId).arg(workspacePath()));
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const RunRecord &run : runs)
            array.append(runJson(run, true));
        writeOut(toJsonLine(array));
    } else {
        writeOut(historyText(runs));
    }
    return 0;
}

int Commands::verify(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("verify"));
    parser.addValue(QStringLiteral("table"), QStringLiteral("ID"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const bool json = parser.isSet(QStringLiteral("json"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    QList<qint64> ids = parseTableIds(parser.values(QStringLiteral("table")));
    QHash<qint64, TableSpec> specs;
    if (ids.isEmpty()) {
        for (const TableSpec &spec : workspace->tables()) {
            ids.append(spec.id);
            specs.insert(spec.id, spec);
        }
    } else {
        for (qint64 id : ids)
            specs.insert(id, requireTable(*workspace, id));
    }

    int exitCode = 0;
    QJsonArray array;
    for (qint64 id : ids) {
        QJsonObject object;
        try {
            const VerifyResult result = verifyTable(*workspace, id);
            object = verifyJson(result);
            if (!json)
                writeOut(verifyText(result));
            if (!result.matches) {
                exitCode = 1;
                // The core's difference usually names the table already; don't say it twice.
                const QString difference = result.difference.isEmpty()
                                               ? QStringLiteral("target differs from source")
                                               : result.difference;
                writeError(difference.contains(result.source)
                               ? difference
                               : QStringLiteral("table %1 (%2 -> %3) differs: %4")
                                     .arg(id)
                                     .arg(result.source, result.target, difference));
            }
        } catch (const Error &error) {
            // One unreadable table must not hide the others' results.
            exitCode = 1;
            const TableSpec &spec = specs[id];
            VerifyResult failed;
            failed.tableId = id;
            failed.source = spec.sourceDisplay();
            failed.target = spec.targetDisplay();
            failed.difference = error.message();
            object = verifyJson(failed);
            object.insert(QStringLiteral("error"), error.message());
            if (!json)
                writeOut(QStringLiteral("table %1 %2 -> %3: ERROR: %4\n")
                             .arg(id)
                             .arg(failed.source, failed.target, oneLine(error.message())));
            writeError(QStringLiteral("table %1 (%2 -> %3) cannot be verified: %4")
                           .arg(id)
                           .arg(failed.source, failed.target, error.message()));
        }
        array.append(object);
    }
    if (json)
        writeOut(toJsonLine(array));
    return exitCode;
}

} // namespace tidemark::cli
