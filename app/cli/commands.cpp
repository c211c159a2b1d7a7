// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"

#include "app/cli/jsonformat.h"
#include "app/cli/jsonlogsink.h"
#include "app/cli/passwordinput.h"
#include "app/cli/textformat.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/conninfo.h"
#include "model/credentials/credentialstore.h"
#include "model/engine/backfill.h"
#include "model/engine/faultpoint.h"
#include "model/engine/remotework.h"
#include "model/engine/restoredtargetcheck.h"
#include "model/engine/runcoordinator.h"
#include "model/engine/tableedit.h"
#include "model/engine/tablepurge.h"
#include "model/engine/tablesetup.h"
#include "model/engine/verifier.h"
#include "model/schedule/clock.h"
#include "model/schedule/cronexpression.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/runner.h"
#include "model/schedule/runnerstatus.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QMetaType>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTimeZone>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace tidemark::cli {

namespace {

const char *const usageText =
    R"(Usage: tidemark-cli [-w FILE | --workspace FILE] COMMAND ...   (env TIDEMARK_WORKSPACE as fallback)
A postgresql:// URI instead of FILE names a team's workspace on a server (docs/team.md): schema
tidemark, or --workspace-schema NAME (env TIDEMARK_WORKSPACE_SCHEMA); no password in the URI.

Commands:
  init                                   create an empty workspace; refuses to overwrite a file
  connection add NAME --sqlite PATH      PATH's folder must exist; a missing file is created when
                                         first written, as open as its source (0600 from a server)
  connection add NAME --postgres CONNINFO [--password-env VAR | --password-prompt | --password-stdin]
                                         --password-prompt/--password-stdin store the password in
                                         the system keychain (never in the workspace)
  connection edit NAME [--sqlite PATH | --postgres CONNINFO] [--password-env VAR | --password-prompt |
                  --password-stdin] [--name NEW] [--yes]
                                         only the options given change (--password-env "" removes
                                         it); a new file or server for a connection that tables use
                                         needs --yes: their positions describe what the old one holds
  connection remove NAME                 refused while a table, live or removed, uses it
  connection test NAME                   opens it: "ok" and the file or server (exit 0), or the
                                         error (exit 1)
  connection set-password NAME [--password-prompt | --password-stdin]   the terminal by default
  connection forget-password NAME        removes the connection's password from the keychain
  connection list [--json]
  table add --source CONN:TABLE --target CONN:TABLE --watermark COL
            [--tiebreak COL] [--key COL[,COL...]] [--mode append|merge|overwrite]
            [--lookback VALUE] [--initial-watermark VALUE] [--max-skipped N]
            [--expect-rows] [--paused] [--commit-per-batch] [--batch-size N]
            [--add-new-columns] [--watermark-type timestamp|integer]
            [--max-future DURATION|none] [--max-jump N]
                                          prints the new table's id alone on stdout
            --max-skipped N: 0 to 9007199254740992 (2^53); --batch-size N: 1 to 1000000;
            --lookback: a duration for a timestamp watermark, a count (0 to 2^63-1) for an integer one;
            --initial-watermark: any 64-bit integer for an integer watermark;
            --max-future (timestamp watermark): 1m to 3650d, or none; default 1d: rows dated past
            now + DURATION are held back, counted (rows_future) and warned about, so one row dated
            3000 cannot freeze the table; --max-jump N (integer watermark): 1 to 2^63-1, default
            none: the same for a watermark moving more than N in one run (--max-jump none: no guard)
  table edit ID [the options of table add] [--reset-position] [--no-expect-rows]
                [--no-commit-per-batch] [--no-add-new-columns]
                                      only the options given change ("" clears --tiebreak,
                                      --lookback and --initial-watermark; --max-jump none);
                                      refused while a run holds the table; validated as table add.
                                      A new --source, --target, --watermark, --watermark-type or
                                      --tiebreak makes the position meaningless: refused unless
                                      --reset-position, which works as 'backfill ID --truncate'
                                      (the target is emptied in one transaction with its state
                                      row, the next run copies from the initial watermark, the
                                      watermark log records it as an edit); a target moved from
                                      keeps its rows and is released
  table list [--json] [--archived]    --archived lists the removed tables instead
  table pause ID | table resume ID | table remove ID
  table position ID [--json]          the table's position in the workspace and in the target's
                                      state row (the truth: the next run takes it)
  table set-position ID --watermark VALUE [--tiebreak VALUE] [--yes] [--json]
                                      moves the position, keeping the target's rows (as backfill
                                      --keep): refused while the table runs; --yes is needed to
                                      move forward (rows passed over are never copied) and to
                                      move an append table back (rows copied twice); recorded
                                      as a watermark change with cause set-position
  table restore ID [--yes]            brings a removed table back, same id and position;
                                      refused when another table writes or owns its target
                                      (--yes: even so when the target records another owner)
  table purge ID [--yes]              forgets a removed table for good and releases its target:
                                      its tidemark_state row there is deleted, its rows stay;
                                      refused while the target still holds rows or cannot be
                                      reached, unless --yes; its history stays
  run [--table ID]... [--concurrency N] [--dry-run] [--json] [--trigger cli|schedule]
                                      --concurrency N: 1 to 256
  run --adopt --table ID...           takes the tables' targets over from the workspace or table
                                      that owns them (after a migration), then runs them
  backfill ID --from VALUE (--keep | --delete-newer) [--yes] [--json]
  backfill ID --truncate [--json]     empties the target; the next run reloads from the start
  history [--run RUN_ID] [--table ID] [--limit N] [--json]
                                      the newest 100 runs unless --limit N (0: all of them; at
                                      most 2147483647);
                                      --table: the runs that copied that table, with its
                                      iteration only
  verify [--table ID]... [--json]
  alert set [--hook CMD] [--hook-timeout DURATION] [--hook-env VAR[,VAR...]] [--webhook URL]
            [--webhook-timeout DURATION] [--on STATUS[,STATUS...]]
                                         what a failed, warning or interrupted run notifies; only
                                         the options given change, "" removes the hook or webhook
                                         --hook-timeout, --webhook-timeout: 1ms to 10m
                                         a hook gets PATH, HOME, LANG, LC_*, TZ, the TIDEMARK_*
                                         variables of the run and the variables --hook-env names,
                                         never a connection's --password-env or a webhook's ${NAME}
  alert show [--json] | alert test [--run RUN_ID] | alert clear
  schedule add NAME --cron EXPR [--tz ZONE] [--table ID]... [--concurrency N]
               [--retries N] [--timeout DURATION] [--paused]
               [--hook CMD] [--hook-timeout DURATION] [--hook-env VAR[,VAR...]] [--webhook URL]
               [--webhook-timeout DURATION] [--on STATUS[,STATUS...]]
                                          the schedule's own alerts, sent for its runs besides
                                          the workspace's (alert set)
               --concurrency N: 1 to 256; --retries N: 0 to 10; --timeout: 1s to 7d; a cron that
               never fires (e.g. "0 0 30 2 *") is refused
  schedule edit NAME [--cron EXPR] [--tz ZONE] [--table ID]... | [--all-tables] [--concurrency N]
               [--retries N] [--timeout DURATION] [--hook CMD] [--webhook URL] [--on ...] ...
                                          only the options given change; "" removes a hook or webhook
  schedule list [--json]
  schedule next NAME [--count N] [--after ISO] [--json]   the next fire times, UTC ISO;
                                                          --count N: 1 to 1000 (default 5)
  schedule pause NAME | schedule resume NAME | schedule remove NAME
  serve [--json-log]                  runs due schedules until SIGTERM/SIGINT (exit 0); exits 3
                                      at once when its workspace file is replaced under it, so a
                                      restart (the unit's Restart=on-failure) opens the new file
  runners [--json]                    the workspace's runner: alive or stopped, last beat, and
                                      whether its last firing failed (and why)

Durations: 500ms, 30s, 15m, 2h, 1d (a bare number is seconds). IDs (table, run) are 1 or more.
A number outside its range is refused, naming the command and the option (exit code 2).

A PostgreSQL password is taken from --password-env VAR if given, else from the system keychain
(service "Tidemark"), else libpq reads ~/.pgpass or a service file. TIDEMARK_NO_KEYCHAIN=1 skips
the keychain.

Exit codes: 0 fine; 1 an iteration failed or was cancelled, verify found a difference, or
connection test could not open the connection; 2 usage or validation error (nothing was run).

Help on one command: tidemark-cli COMMAND --help, or tidemark-cli help COMMAND.
)";

// The entries of the Commands list in usageText that `command` ("table edit") or a group
// ("table") heads, each with its continuation lines: an entry's first line may list several
// commands ("table pause ID | table resume ID"). Empty when nothing matches.
QStringList usageEntries(const QString &command) {
    const auto heads = [&command](const QString &line) {
        // The entry's own words, before the column of explanations.
        const QString text = line.trimmed().section(QStringLiteral("   "), 0, 0);
        for (const QString &part : text.split(QStringLiteral(" | "))) {
            const QString alternative = part.trimmed();
            if (alternative == command || alternative.startsWith(command + QLatin1Char(' ')))
                return true;
        }
        return false;
    };
    QStringList picked;
    bool inCommands = false;
    bool taking = false;
    for (const QString &line : QString::fromUtf8(usageText).split(QLatin1Char('\n'))) {
        if (line == QLatin1String("Commands:")) {
            inCommands = true;
            continue;
        }
        if (!inCommands)
            continue;
        if (line.isEmpty())
            break; // the end of the list
        if (line.startsWith(QLatin1String("  ")) && !line.at(2).isSpace())
            taking = heads(line);
        if (taking)
            picked << line;
    }
    return picked;
}

// The usage of one command or group, derived from the one usage text so that the two never
// disagree; empty when it heads no entry.
QString commandUsage(const QString &command) {
    QStringList entries = usageEntries(command);
    if (entries.isEmpty())
        return QString();
    // `table edit` takes table add's options: show them with it.
    if (command == QLatin1String("table edit"))
        entries += usageEntries(QStringLiteral("table add"));
    return QStringLiteral("Usage: tidemark-cli [-w FILE | --workspace FILE] ...\n\n") +
           entries.join(QLatin1Char('\n')) +
           QStringLiteral("\n\nDurations: 500ms, 30s, 15m, 2h, 1d. Exit codes: 0 fine, 1 failed, 2 usage or "
                          "validation error (tidemark-cli --help says more).\n");
}

// Thrown by a subcommand's -h/--help: prints that command's usage (all of it when `command` is
// empty or heads no entry) and exits 0.
struct HelpRequested {
    QString command;
};

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
        addValue(QStringLiteral("workspace-schema"), QStringLiteral("NAME"));
        m_parser.addOption(QCommandLineOption(QStringList{QStringLiteral("h"), QStringLiteral("help")}));
    }

    void addFlag(const QString &name) { m_parser.addOption(QCommandLineOption(name)); }
    void addValue(const QStringList &names, const QString &valueName) {
        m_parser.addOption(QCommandLineOption(names, QString(), valueName));
        m_valueOptions += names;
    }
    void addValue(const QString &name, const QString &valueName) { addValue(QStringList{name}, valueName); }

    // Returns the positional arguments; refuses unknown options and a wrong argument count.
    QStringList parse(const QStringList &args, qsizetype minPositional, qsizetype maxPositional,
                      const QString &positionalName = QString()) {
        if (!m_parser.parse(QStringList{QStringLiteral("tidemark-cli")} + negativesPositional(args)))
            throw ValidationError(
                QStringLiteral("%1: %2 (see tidemark-cli %1 --help)")
                    .arg(m_command, m_parser.errorText().chopped(
                                        m_parser.errorText().endsWith(QLatin1Char('.')) ? 1 : 0)));
        if (m_parser.isSet(QStringLiteral("help")))
            throw HelpRequested{m_command};
        // What TIDEMARK_WORKSPACE_SCHEMA says, for this process and the ones it starts.
        if (m_parser.isSet(QStringLiteral("workspace-schema")))
            qputenv("TIDEMARK_WORKSPACE_SCHEMA", m_parser.value(QStringLiteral("workspace-schema")).toUtf8());
        const QStringList positional = m_parser.positionalArguments();
        if (positional.size() < minPositional)
            throw ValidationError(QStringLiteral("%1: missing %2").arg(m_command, positionalName));
        if (positional.size() > maxPositional)
            throw ValidationError(QStringLiteral("%1: unexpected argument '%2'")
                                      .arg(m_command, positional.value(maxPositional)));
        return positional;
    }

    const QString &command() const { return m_command; }
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
    // `args` with every negative number that is not an option's value moved behind a "--": no
    // option is named by digits, so `table pause -1` is the ID -1 (refused by its range check,
    // naming it), not an unknown option '1'.
    QStringList negativesPositional(const QStringList &args) const {
        static const QRegularExpression negative(QStringLiteral("^-[0-9]+$"));
        QStringList options;
        QStringList negatives;
        for (qsizetype i = 0; i < args.size(); ++i) {
            const QString &arg = args[i];
            if (arg == QLatin1String("--"))
                return options + args.mid(i) + negatives;
            if (!takesValue(args.value(i - 1)) && negative.match(arg).hasMatch())
                negatives.append(arg);
            else
                options.append(arg);
        }
        if (negatives.isEmpty())
            return options;
        return options + QStringList{QStringLiteral("--")} + negatives;
    }

    // Whether `arg` is a value option ("--count", "-w"), whose next argument is its value.
    bool takesValue(const QString &arg) const {
        if (!arg.startsWith(QLatin1Char('-')) || arg.contains(QLatin1Char('=')))
            return false;
        return m_valueOptions.contains(arg.mid(arg.startsWith(QLatin1String("--")) ? 2 : 1));
    }

    QString m_command;
    QCommandLineParser m_parser;
    QStringList m_valueOptions;
};

// `serve`'s exit status when its workspace file was replaced under it.
constexpr int kExitWorkspaceReplaced = 3;

// Every number an option takes is range-checked: '2147483648' for an int is refused, never wrapped.
// `what` names the command and the option ("schedule add nightly: --retries").
qint64 parseInteger(const QString &text, const QString &what, qint64 minimum,
                    qint64 maximum = std::numeric_limits<qint64>::max()) {
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    if (!ok || value < minimum || value > maximum) {
        const QString range = maximum == std::numeric_limits<qint64>::max()
                                  ? QStringLiteral("of at least %1").arg(minimum)
                                  : QStringLiteral("from %1 to %2").arg(minimum).arg(maximum);
        throw ValidationError(QStringLiteral("%1: '%2' is not an integer %3").arg(what, text, range));
    }
    return value;
}

// The ranges the usage text documents, one place for each. Numbers that become an int stay far
// below overflow; the rest are what is still useful, so that a typo is refused instead of a
// process that waits for days or prints two billion lines.
constexpr qint64 kMaxConcurrency = 256;     // run and schedule --concurrency
constexpr qint64 kMaxBatchSize = 1'000'000; // the window allows batches up to the same size
// A count of rows: 2^53, the largest integer every JSON reader of `table list --json` keeps exact.
constexpr qint64 kMaxSkipped = qint64(1) << 53;
constexpr qint64 kMaxRetries = 10;     // the retry delay stops growing long before
constexpr qint64 kMaxNextCount = 1000; // schedule next --count
constexpr qint64 kMaxHistoryLimit = std::numeric_limits<int>::max();
constexpr qint64 kMaxIterationTimeoutSeconds = 7 * 86'400; // schedule --timeout: a week

// --max-future: a duration from one minute to ten years, or "none" (a table whose watermark is
// dated ahead on purpose, such as planned events). Stored as its shortest spelling.
QString parseMaxFuture(const QString &text, const QString &command) {
    if (text.trimmed() == QLatin1String("none"))
        return QStringLiteral("none");
    constexpr qint64 kMinute = 60'000;
    constexpr qint64 kTenYears = 3650LL * 86'400'000;
    const QString option = command + QStringLiteral(": --max-future");
    const qint64 ms = parseDurationMs(text, option);
    if (ms < kMinute || ms > kTenYears)
        throw ValidationError(QStringLiteral("%1: '%2' is not from 1m to 3650d (or none)").arg(option, text));
    return durationText(ms);
}

// `option` of `parser`'s command as a bounded integer; the error names both.
qint64 optionInteger(const SubcommandParser &parser, const QString &option, qint64 minimum,
                     qint64 maximum = std::numeric_limits<qint64>::max()) {
    return parseInteger(parser.value(option), QStringLiteral("%1: --%2").arg(parser.command(), option),
                        minimum, maximum);
}

// A positional table ID of `command` ("table pause: table ID: '0' is not ...").
qint64 parseTableId(const QString &text, const QString &command) {
    return parseInteger(text, QStringLiteral("%1: table ID").arg(command), 1);
}

// The --table ID... of `command`, without repeats.
QList<qint64> parseTableIds(const QStringList &texts, const QString &command) {
    QList<qint64> ids;
    for (const QString &text : texts) {
        const qint64 id = parseInteger(text, QStringLiteral("%1: --table").arg(command), 1);
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

// The tables, live and removed, that read from or write into connection `name`, as
// "table 1 (src:a -> dst:a)" / "removed table 3 (...)"; `removed` gets the ids of the removed ones.
QStringList tablesUsing(Workspace &workspace, const QString &name, QList<qint64> *removed = nullptr) {
    QStringList users;
    for (const bool archived : {false, true}) {
        for (const TableSpec &spec : archived ? workspace.archivedTables() : workspace.tables()) {
            if (spec.sourceConnection != name && spec.targetConnection != name)
                continue;
            users << QStringLiteral("%1table %2 (%3 -> %4)")
                         .arg(archived ? QStringLiteral("removed ") : QString())
                         .arg(spec.id)
                         .arg(spec.sourceDisplay(), spec.targetDisplay());
            if (archived && removed)
                removed->append(spec.id);
        }
    }
    return users;
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

// SIGINT/SIGTERM become a cooperative cancel for as long as `run` lives: installed before the
// workspace is opened, so a signal during the set-up is never a silent kill.
class TerminationSignals {
public:
    TerminationSignals() {
        g_signal.store(0);
        std::signal(SIGINT, onTerminationSignal);
        std::signal(SIGTERM, onTerminationSignal);
    }
    ~TerminationSignals() {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
    TerminationSignals(const TerminationSignals &) = delete;
    TerminationSignals &operator=(const TerminationSignals &) = delete;
};

// What an interrupt did, said once the run has ended: a signal that came after every iteration
// had committed cancelled nothing.
QString interruptOutcome(int signal, const RunRecord &run) {
    qsizetype cancelled = 0;
    for (const IterationRecord &record : run.iterations)
        cancelled += record.status == IterationStatus::Cancelled ? 1 : 0;
    if (cancelled > 0)
        return QStringLiteral("interrupted (signal %1): run %2 %3; %4 iteration(s) cancelled, rolled back to "
                              "their last commit")
            .arg(signal)
            .arg(run.id)
            .arg(run.status)
            .arg(cancelled);
    return QStringLiteral("interrupted (signal %1) too late to cancel anything: every iteration had ended; "
                          "run %2 %3")
        .arg(signal)
        .arg(run.id)
        .arg(run.status);
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
            } else if (arg == QLatin1String("--workspace-schema")) {
                if (i + 1 >= args.size())
                    throw ValidationError(QStringLiteral("option %1 needs a NAME").arg(arg));
                qputenv("TIDEMARK_WORKSPACE_SCHEMA", args[++i].toUtf8());
            } else if (arg.startsWith(QLatin1String("--workspace-schema="))) {
                qputenv("TIDEMARK_WORKSPACE_SCHEMA", arg.mid(19).toUtf8());
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
    } catch (const HelpRequested &help) {
        const QString usage = help.command.isEmpty() ? QString() : commandUsage(help.command);
        writeOut(usage.isEmpty() ? QString::fromUtf8(usageText) : usage);
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
    if (command == QLatin1String("help")) {
        if (rest.isEmpty())
            throw HelpRequested{};
        const QString asked = rest.join(QLatin1Char(' '));
        if (commandUsage(asked).isEmpty())
            throw ValidationError(
                QStringLiteral("help: unknown command '%1' (see tidemark-cli --help)").arg(asked));
        throw HelpRequested{asked};
    }
    // `table --help`, `run -h`: before any subcommand is looked up, so a group answers too.
    if (const QString first = rest.value(0);
        (first == QLatin1String("--help") || first == QLatin1String("-h")) &&
        !commandUsage(command).isEmpty())
        throw HelpRequested{command};
    if (command == QLatin1String("alert")) {
        const QString sub = rest.value(0);
        if (sub == QLatin1String("set"))
            return alertSet(rest.mid(1));
        if (sub == QLatin1String("show"))
            return alertShow(rest.mid(1));
        if (sub == QLatin1String("test"))
            return alertTest(rest.mid(1));
        if (sub == QLatin1String("clear"))
            return alertClear(rest.mid(1));
        throw ValidationError(
            sub.isEmpty()
                ? QStringLiteral("alert: missing subcommand (see tidemark-cli alert --help)")
                : QStringLiteral("alert: unknown subcommand '%1' (see tidemark-cli alert --help)").arg(sub));
    }
    if (command == QLatin1String("schedule"))
        return schedule(rest.value(0), rest.mid(1));
    if (command == QLatin1String("serve"))
        return serve(rest);
    if (command == QLatin1String("runners"))
        return runners(rest);
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
            if (sub == QLatin1String("edit"))
                return connectionEdit(subArgs);
            if (sub == QLatin1String("remove"))
                return connectionRemove(subArgs);
            if (sub == QLatin1String("test"))
                return connectionTest(subArgs);
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
            if (sub == QLatin1String("position"))
                return tablePosition(subArgs);
            if (sub == QLatin1String("set-position"))
                return tableSetPosition(subArgs);
            if (sub == QLatin1String("edit"))
                return tableEdit(subArgs);
            if (sub == QLatin1String("purge"))
                return tablePurge(subArgs);
        }
        if (sub.isEmpty())
            throw ValidationError(
                QStringLiteral("%1: missing subcommand (see tidemark-cli %1 --help)").arg(command));
        throw ValidationError(
            QStringLiteral("%1: unknown subcommand '%2' (see tidemark-cli %1 --help)").arg(command, sub));
    }
    throw ValidationError(QStringLiteral("unknown command '%1' (see tidemark-cli --help)").arg(command));
}

QString Commands::workspacePath() const {
    QString path = m_workspace;
    if (path.isEmpty())
        path = qEnvironmentVariable("TIDEMARK_WORKSPACE");
    if (path.isEmpty())
        throw ValidationError(QStringLiteral("no workspace: pass -w FILE or set TIDEMARK_WORKSPACE"));
    return WorkspaceLocation::resolve(path).text();
}

void Commands::installLogging(const QString &path) {
    if (m_loggingInstalled)
        return;
    m_loggingInstalled = true;
    try {
        // A server workspace has no folder of its own for a log file: stderr only.
        installLogSinks(WorkspaceLocation::isServer(path) ? QString() : path, true);
    } catch (const std::exception &error) {
        // A log file we cannot write must not stop an operator's command.
        writeError(QStringLiteral("warning: no log file beside %1: %2")
                       .arg(path, QString::fromLocal8Bit(error.what())));
    }
}

std::unique_ptr<Workspace> Commands::openWorkspace() {
    const QString path = workspacePath();
    if (!WorkspaceLocation::isServer(path) && !QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 does not exist (create it with: tidemark-cli -w %1 init)")
                .arg(path));
    try {
        std::unique_ptr<Workspace> workspace = Workspace::open(path);
        // Only now: a file that is not a workspace gets no `<file>.log` beside it.
        installLogging(path);
        AlertDispatcher alerts(path);
        alerts.closeInterruptedRuns(*workspace);
        alerts.waitUntilIdle();
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
    if (!WorkspaceLocation::isServer(path) && QFileInfo::exists(path))
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
        spec.path = checkedSqlitePath(path, parser.command(), name);
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

int Commands::connectionEdit(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection edit"));
    parser.addValue(QStringLiteral("sqlite"), QStringLiteral("PATH"));
    parser.addValue(QStringLiteral("postgres"), QStringLiteral("CONNINFO"));
    parser.addValue(QStringLiteral("password-env"), QStringLiteral("VAR"));
    parser.addValue(QStringLiteral("name"), QStringLiteral("NEW"));
    parser.addFlag(QStringLiteral("password-prompt"));
    parser.addFlag(QStringLiteral("password-stdin"));
    parser.addFlag(QStringLiteral("yes"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const QString command = QStringLiteral("connection edit %1").arg(name);
    const bool isSqlite = parser.isSet(QStringLiteral("sqlite"));
    const bool isPostgres = parser.isSet(QStringLiteral("postgres"));
    if (isSqlite && isPostgres)
        throw ValidationError(
            QStringLiteral("%1: give one of --sqlite PATH or --postgres CONNINFO").arg(command));
    const bool anyGiven = isSqlite || isPostgres || parser.isSet(QStringLiteral("password-env")) ||
                          parser.isSet(QStringLiteral("name")) ||
                          parser.isSet(QStringLiteral("password-prompt")) ||
                          parser.isSet(QStringLiteral("password-stdin"));
    if (!anyGiven)
        throw ValidationError(
            QStringLiteral("%1: nothing to change (see tidemark-cli connection edit --help)").arg(command));

    std::unique_ptr<Workspace> workspace = openWorkspace();
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
    } else if (isPostgres) {
        edited.kind = ConnectionKind::Postgres;
        edited.conninfo = parser.value(QStringLiteral("postgres"));
        edited.path.clear();
    }
    if (edited.kind != ConnectionKind::Postgres) {
        for (const char *option : {"password-env", "password-prompt", "password-stdin"}) {
            if (parser.isSet(QString::fromLatin1(option)))
                throw ValidationError(QStringLiteral("%1: --%2 applies to a PostgreSQL connection only")
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
    if (edited.kind == ConnectionKind::Postgres) {
        try {
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
        if (const QStringList users = tablesUsing(*workspace, name); !users.isEmpty())
            throw ValidationError(
                QStringLiteral("%1: %2 use it, and their positions describe what the old %3 holds; pass "
                               "--yes if it is the same data at a new address")
                    .arg(command, users.join(QStringLiteral(", ")),
                         stored->kind == ConnectionKind::Sqlite ? QStringLiteral("file")
                                                                : QStringLiteral("server")));
    }
    QString password;
    if (edited.kind == ConnectionKind::Postgres) {
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

int Commands::connectionRemove(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection remove"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(QStringLiteral("connection remove: connection '%1' does not exist").arg(name));
    // A removed table still needs its connections to be restored, or purged (its target's state
    // row is cleared through them).
    QList<qint64> removed;
    if (const QStringList users = tablesUsing(*workspace, name, &removed); !users.isEmpty())
        throw ValidationError(
            QStringLiteral("connection remove %1: %2 use it; remove those tables first (table remove ID)%3")
                .arg(name, users.join(QStringLiteral(", ")),
                     removed.isEmpty() ? QString()
                                       : QStringLiteral(" and purge the removed ones (table purge ID)")));
    workspace->removeConnection(name);
    if (spec->kind == ConnectionKind::Postgres) {
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

int Commands::connectionTest(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("connection test"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    const std::optional<ConnectionSpec> spec = workspace->connection(name);
    if (!spec)
        throw ValidationError(QStringLiteral("connection test: connection '%1' does not exist").arg(name));
    const bool sqlite = spec->kind == ConnectionKind::Sqlite;
    const QString where = sqlite ? QStringLiteral("SQLite file %1").arg(spec->path)
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

namespace {

// The options of `table add`, which `table edit` takes too (one list, so that the two never
// drift); `editing` adds the edit's own: a reset of the position and the flags' way back.
void addTableOptions(SubcommandParser &parser, bool editing) {
    for (const char *name : {"source", "target"})
        parser.addValue(QString::fromLatin1(name), QStringLiteral("CONN:TABLE"));
    for (const char *name : {"watermark", "tiebreak"})
        parser.addValue(QString::fromLatin1(name), QStringLiteral("COL"));
    parser.addValue(QStringLiteral("key"), QStringLiteral("COL[,COL...]"));
    parser.addValue(QStringLiteral("mode"), QStringLiteral("MODE"));
    parser.addValue(QStringLiteral("lookback"), QStringLiteral("VALUE"));
    parser.addValue(QStringLiteral("initial-watermark"), QStringLiteral("VALUE"));
    parser.addValue(QStringLiteral("watermark-type"), QStringLiteral("TYPE"));
    parser.addValue(QStringLiteral("max-skipped"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("batch-size"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("max-future"), QStringLiteral("DURATION"));
    parser.addValue(QStringLiteral("max-jump"), QStringLiteral("N"));
    for (const char *name : {"expect-rows", "paused", "commit-per-batch", "add-new-columns"})
        parser.addFlag(QString::fromLatin1(name));
    if (editing) {
        for (const char *name :
             {"reset-position", "no-expect-rows", "no-commit-per-batch", "no-add-new-columns"})
            parser.addFlag(QString::fromLatin1(name));
    }
}

// The option names addTableOptions() gives every table command, for "nothing to change".
const QStringList kTableSettingOptions{QStringLiteral("source"),
                                       QStringLiteral("target"),
                                       QStringLiteral("watermark"),
                                       QStringLiteral("tiebreak"),
                                       QStringLiteral("key"),
                                       QStringLiteral("mode"),
                                       QStringLiteral("lookback"),
                                       QStringLiteral("initial-watermark"),
                                       QStringLiteral("watermark-type"),
                                       QStringLiteral("max-skipped"),
                                       QStringLiteral("batch-size"),
                                       QStringLiteral("max-future"),
                                       QStringLiteral("max-jump"),
                                       QStringLiteral("expect-rows"),
                                       QStringLiteral("paused"),
                                       QStringLiteral("commit-per-batch"),
                                       QStringLiteral("add-new-columns"),
                                       QStringLiteral("reset-position"),
                                       QStringLiteral("no-expect-rows"),
                                       QStringLiteral("no-commit-per-batch"),
                                       QStringLiteral("no-add-new-columns")};

// A flag and its way back (`--expect-rows` / `--no-expect-rows`): `value` unchanged when neither
// is given to an edit; an add has no way back, so there the flag alone decides.
bool flagSetting(const SubcommandParser &parser, const QString &flag, bool editing, bool value) {
    if (!editing)
        return parser.isSet(flag);
    const bool on = parser.isSet(flag);
    const bool off = parser.isSet(QStringLiteral("no-") + flag);
    if (on && off)
        throw ValidationError(QStringLiteral("%1: give one of --%2 or --no-%2").arg(parser.command(), flag));
    return on ? true : off ? false : value;
}

// Applies the table options given to `draft`: a new table's draft for `table add` (every option
// counts, its default when not given), the stored table for `table edit` (only the options given
// change; "" clears --tiebreak, --lookback and --initial-watermark).
void applyTableOptions(const SubcommandParser &parser, TableDraft &draft, bool editing) {
    TableSpec &spec = draft.spec;
    const auto given = [&](const char *name) {
        return !editing || parser.isSet(QString::fromLatin1(name));
    };
    if (given("source"))
        std::tie(spec.sourceConnection, spec.sourceTable) =
            splitConnTable(parser.required(QStringLiteral("source")), QStringLiteral("--source"));
    if (given("target"))
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
    if (given("watermark"))
        spec.watermarkColumn = parser.value(QStringLiteral("watermark"));
    if (spec.watermarkColumn.isEmpty() && spec.mode != WriteMode::Overwrite)
        throw ValidationError(
            QStringLiteral("%1 %2: --watermark COL is required (except with --mode overwrite)")
                .arg(parser.command(), spec.sourceDisplay()));
    if (given("tiebreak"))
        spec.tiebreakColumn = parser.value(QStringLiteral("tiebreak"));
    if (parser.isSet(QStringLiteral("watermark-type"))) {
        const QString typeText = parser.value(QStringLiteral("watermark-type"));
        draft.watermarkType = watermarkTypeFromName(typeText);
        if (draft.watermarkType == WatermarkType::None)
            throw ValidationError(
                QStringLiteral("--watermark-type: '%1' is not timestamp or integer").arg(typeText));
    }
    if (parser.isSet(QStringLiteral("key"))) {
        spec.keyColumns.clear();
        for (const QString &part : parser.value(QStringLiteral("key")).split(QLatin1Char(','))) {
            if (!part.trimmed().isEmpty())
                spec.keyColumns.append(part.trimmed());
        }
        if (spec.keyColumns.isEmpty())
            throw ValidationError(QStringLiteral("--key: no column given"));
    }
    if (given("lookback"))
        spec.lookback = parser.value(QStringLiteral("lookback"));
    if (parser.isSet(QStringLiteral("max-skipped")))
        spec.maxSkipped = optionInteger(parser, QStringLiteral("max-skipped"), 0, kMaxSkipped);
    if (parser.isSet(QStringLiteral("batch-size")))
        spec.batchSize = int(optionInteger(parser, QStringLiteral("batch-size"), 1, kMaxBatchSize));
    if (parser.isSet(QStringLiteral("max-future")))
        spec.maxFuture = parseMaxFuture(parser.value(QStringLiteral("max-future")), parser.command());
    if (parser.isSet(QStringLiteral("max-jump")))
        spec.maxJump = parser.value(QStringLiteral("max-jump")).trimmed() == QLatin1String("none")
                           ? 0
                           : optionInteger(parser, QStringLiteral("max-jump"), 1);
    spec.expectRows = flagSetting(parser, QStringLiteral("expect-rows"), editing, spec.expectRows);
    spec.commitPerBatch =
        flagSetting(parser, QStringLiteral("commit-per-batch"), editing, spec.commitPerBatch);
    spec.addNewColumns = flagSetting(parser, QStringLiteral("add-new-columns"), editing, spec.addNewColumns);
    if (!editing)
        spec.active = !parser.isSet(QStringLiteral("paused"));
    else if (parser.isSet(QStringLiteral("paused")))
        spec.active = false;
    if (parser.isSet(QStringLiteral("initial-watermark"))) {
        draft.initialWatermarkText = parser.value(QStringLiteral("initial-watermark")).trimmed();
        // An edit clears it with ""; a new table simply leaves the option out.
        if (!editing && draft.initialWatermarkText.isEmpty())
            throw ValidationError(QStringLiteral("--initial-watermark: empty value"));
    }
}

// prepareTable() for `parser`'s command: every refusal names the command.
TableSpec prepareForCommand(Workspace &workspace, const TableDraft &draft, const QString &command) {
    try {
        return prepareTable(workspace, draft);
    } catch (const ValidationError &error) {
        // The core's checks name the option ("invalid --lookback '-1'"); the line names the
        // command too, like every other refusal of the command.
        if (error.message().startsWith(command))
            throw;
        throw ValidationError(QStringLiteral("%1: %2").arg(command, error.message()));
    } catch (const Error &error) {
        // The source could not be inspected: the table is refused, nothing was changed.
        throw ValidationError(error.message());
    }
}

// The future guards fit the watermark's type: --max-jump an integer, --max-future a timestamp.
void requireFittingGuards(const TableSpec &prepared, const QString &command) {
    if (prepared.maxJump > 0 && prepared.watermarkType != WatermarkType::Integer)
        throw ValidationError(QStringLiteral("%1 %2: --max-jump guards an integer watermark; '%3' is a %4 "
                                             "(use --max-future DURATION)")
                                  .arg(command, prepared.sourceDisplay(), prepared.watermarkColumn,
                                       watermarkTypeName(prepared.watermarkType)));
    if (!prepared.maxFuture.isEmpty() && prepared.watermarkType != WatermarkType::Timestamp)
        throw ValidationError(
            QStringLiteral("%1 %2: --max-future guards a timestamp watermark; '%3' is "
                           "%4 (use --max-jump N for an integer)")
                .arg(command, prepared.sourceDisplay(), prepared.watermarkColumn,
                     prepared.watermarkColumn.isEmpty()
                         ? QStringLiteral("not set")
                         : QStringLiteral("a ") + watermarkTypeName(prepared.watermarkType)));
}

} // namespace

int Commands::tableAdd(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table add"));
    addTableOptions(parser, false);
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    TableDraft draft;
    applyTableOptions(parser, draft, false);
    std::unique_ptr<Workspace> workspace = openWorkspace();
    TableSpec prepared = prepareForCommand(*workspace, draft, parser.command());
    prepared.maxFuture = draft.spec.maxFuture;
    prepared.maxJump = draft.spec.maxJump;
    requireFittingGuards(prepared, parser.command());
    const qint64 id = workspace->addTable(prepared);
    writeOut(QStringLiteral("%1\n").arg(id));
    return 0;
}

int Commands::tableEdit(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table edit"));
    addTableOptions(parser, true);
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const bool anyGiven = std::any_of(kTableSettingOptions.begin(), kTableSettingOptions.end(),
                                      [&parser](const QString &name) { return parser.isSet(name); });
    if (!anyGiven)
        throw ValidationError(
            QStringLiteral("table edit %1: nothing to change (give the options of table add to change; see "
                           "tidemark-cli table edit --help)")
                .arg(id));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    const TableSpec before = requireTable(*workspace, id);
    TableDraft draft;
    draft.spec = before;
    // Checked again as table add checks it, against the source as it is now.
    if (!before.initialWatermark.isNull())
        draft.initialWatermarkText = before.initialWatermark.display();
    applyTableOptions(parser, draft, true);
    const bool sameColumn = draft.spec.watermarkColumn == before.watermarkColumn &&
                            draft.spec.sourceDisplay() == before.sourceDisplay();
    // An empty column cannot show its type again; the type it was added with stands.
    if (!parser.isSet(QStringLiteral("watermark-type")) && sameColumn)
        draft.watermarkType = before.watermarkType;
    const QString command = QStringLiteral("table edit %1").arg(id);
    TableSpec after = prepareForCommand(*workspace, draft, command);
    if (!parser.isSet(QStringLiteral("initial-watermark")) && sameColumn &&
        after.watermarkType == before.watermarkType)
        after.initialWatermark = before.initialWatermark; // exactly as stored, not as re-read
    after.maxFuture = draft.spec.maxFuture;
    after.maxJump = draft.spec.maxJump;
    // A guard of the old watermark type does not carry over to a new type unless it is given.
    if (!parser.isSet(QStringLiteral("max-future")) && after.watermarkType != WatermarkType::Timestamp)
        after.maxFuture.clear();
    if (!parser.isSet(QStringLiteral("max-jump")) && after.watermarkType != WatermarkType::Integer)
        after.maxJump = 0;
    requireFittingGuards(after, command);
    after.lastWatermark = before.lastWatermark;
    after.lastTiebreak = before.lastTiebreak;
    after.lastGeneration = before.lastGeneration;

    TableEditResult result;
    try {
        result = applyTableEdit(*workspace, before, after, parser.isSet(QStringLiteral("reset-position")));
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("table edit: %1").arg(error.message()));
    }
    QString text = QStringLiteral("table %1 changed\n").arg(id);
    if (result.positionReset)
        text = QStringLiteral("table %1 changed; position reset: %2 -> %3, target %4 emptied (cause "
                              "\"edit\" in its watermark log)\n")
                   .arg(id)
                   .arg(result.positionBefore.isNull() ? QStringLiteral("(none)")
                                                       : result.positionBefore.display(),
                        result.positionAfter.isNull() ? QStringLiteral("(none)")
                                                      : result.positionAfter.display(),
                        after.targetDisplay());
    writeOut(text);
    if (!result.oldTargetWarning.isEmpty())
        writeError(QStringLiteral("warning: table %1: %2").arg(id).arg(result.oldTargetWarning));
    return 0;
}

int Commands::tablePurge(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table purge"));
    parser.addFlag(QStringLiteral("yes"));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    PurgeResult result;
    try {
        result = purgeRemovedTable(*workspace, id, parser.isSet(QStringLiteral("yes")));
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("table purge: %1").arg(error.message()));
    }
    QString text = QStringLiteral("table %1 purged; target %2 is free").arg(id).arg(result.targetDisplay);
    if (result.targetRows > 0)
        text += QStringLiteral(" (its %1 rows stay)").arg(result.targetRows);
    writeOut(text + QLatin1Char('\n'));
    if (!result.warning.isEmpty())
        writeError(
            QStringLiteral("warning: table %1 is purged, but its state row in target %2 could not be "
                           "cleared (%3); a table that writes there must take it over with 'run --adopt'")
                .arg(id)
                .arg(result.targetDisplay, result.warning));
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
    // A table whose last run failed, held rows back or found its source behind is never shown as
    // fine: its health comes from that run.
    const QHash<qint64, IterationRecord> last = workspace->lastFinishedIterations();
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const TableSpec &spec : tables) {
            const TableHealth health = tableHealth(last.value(spec.id));
            QJsonObject object = tableJson(spec);
            object.insert(QStringLiteral("health"), health.name);
            object.insert(QStringLiteral("health_reason"),
                          health.reason.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(health.reason));
            object.insert(QStringLiteral("rows_held_back"), last.value(spec.id).rowsFuture);
            array.append(object);
        }
        writeOut(toJsonLine(array));
    } else {
        QString text = tablesText(tables);
        for (const TableSpec &spec : tables) {
            const TableHealth health = tableHealth(last.value(spec.id));
            if (health.name != QLatin1String("ok"))
                text += QStringLiteral("table %1 (%2) is %3: %4 (tidemark-cli history --table %1)\n")
                            .arg(spec.id)
                            .arg(spec.sourceDisplay(), health.name, health.reason);
        }
        writeOut(text);
    }
    return 0;
}

int Commands::tableSetActive(const QStringList &args, const QString &command, bool active) {
    SubcommandParser parser(command);
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    workspace->setActive(id, active);
    return 0;
}

int Commands::tableRemove(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table remove"));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    workspace->removeTable(id);
    return 0;
}

// Where a table stands: the workspace's position and the target's state row, which the next
// run takes as the truth.
int Commands::tablePosition(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table position"));
    parser.addFlag(QStringLiteral("json"));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    const TablePosition position = readPosition(*workspace, id);
    const auto tiebreakJson = [](const Position &p) {
        return p.hasTiebreak() ? QJsonValue::fromVariant(p.tiebreak()) : QJsonValue(QJsonValue::Null);
    };
    const bool inSync =
        position.targetError.isEmpty() &&
        (position.target ? *position.target == position.workspace : position.workspace.isNull());
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject object{
            {QStringLiteral("table_id"), id},
            {QStringLiteral("source"), position.table.sourceDisplay()},
            {QStringLiteral("target"), position.table.targetDisplay()},
            {QStringLiteral("watermark_column"), position.table.watermarkColumn},
            {QStringLiteral("watermark"), watermarkJson(position.workspace.watermark().display())},
            {QStringLiteral("tiebreak"), tiebreakJson(position.workspace)},
            {QStringLiteral("target_watermark"), position.target
                                                     ? watermarkJson(position.target->watermark().display())
                                                     : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("target_tiebreak"),
             position.target ? tiebreakJson(*position.target) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("generation"), position.generation},
            {QStringLiteral("in_sync"), inSync},
            {QStringLiteral("target_error"), position.targetError.isEmpty()
                                                 ? QJsonValue(QJsonValue::Null)
                                                 : QJsonValue(position.targetError)},
        };
        writeOut(toJsonLine(object));
        return 0;
    }
    const auto text = [](const Position &p) {
        return p.isNull() ? QStringLiteral("none") : p.display();
    };
    QString out = QStringLiteral("table %1 (%2 -> %3), watermark column %4\nworkspace: %5\n")
                      .arg(id)
                      .arg(position.table.sourceDisplay(), position.table.targetDisplay(),
                           position.table.watermarkColumn, text(position.workspace));
    if (!position.targetError.isEmpty())
        out += QStringLiteral("target:    could not be read: %1\n").arg(position.targetError);
    else
        out +=
            QStringLiteral("target:    %1%2\n")
                .arg(position.target ? text(*position.target) : QStringLiteral("no state row (never copied)"),
                     inSync ? QString() : QStringLiteral(" (the next run takes the target's position)"));
    writeOut(out);
    return 0;
}

// Moves a table's position by hand, keeping the target's rows: a backfill --keep to any value.
int Commands::tableSetPosition(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table set-position"));
    parser.addValue(QStringLiteral("watermark"), QStringLiteral("VALUE"));
    parser.addValue(QStringLiteral("tiebreak"), QStringLiteral("VALUE"));
    parser.addFlag(QStringLiteral("yes"));
    parser.addFlag(QStringLiteral("json"));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    SetPositionRequest request;
    request.tableId = id;
    request.watermarkText = parser.required(QStringLiteral("watermark"));
    request.tiebreakText = parser.value(QStringLiteral("tiebreak"));
    request.confirmed = parser.isSet(QStringLiteral("yes"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    requireTable(*workspace, id);
    const BackfillResult result = setPosition(*workspace, request);
    const auto text = [](const Watermark &w) {
        return w.isNull() ? QStringLiteral("none") : w.display();
    };
    if (parser.isSet(QStringLiteral("json")))
        writeOut(toJsonLine(
            QJsonObject{{QStringLiteral("table_id"), id},
                        {QStringLiteral("watermark_before"), watermarkJson(result.before.display())},
                        {QStringLiteral("watermark_after"), watermarkJson(result.after.display())}}));
    else
        writeOut(QStringLiteral("table %1: position %2 -> %3 (target rows kept)\n")
                     .arg(id)
                     .arg(text(result.before), text(result.after)));
    return 0;
}

int Commands::tableRestore(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("table restore"));
    parser.addFlag(QStringLiteral("yes"));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    if (workspace->table(id))
        throw ValidationError(QStringLiteral("table %1 is not removed; nothing to restore").arg(id));
    const std::optional<TableSpec> removed = workspace->archivedTable(id);
    if (!removed)
        throwNoSuchTable(*workspace, id);
    // Another workspace's table may have taken the target over (run --adopt) while this one was
    // away; only the target database knows. Asked before restoring, so a refusal changes
    // nothing. A target that cannot be reached does not keep the table away (every run checks
    // the owner again inside its target transaction): the restore goes on and says so.
    RemoteTask task;
    QString uncheckable;
    std::optional<QString> owner;
    try {
        owner = otherTargetOwner(*workspace, *removed, task);
    } catch (const Error &error) {
        uncheckable = error.message();
    }
    if (owner && !parser.isSet(QStringLiteral("yes")))
        throw ValidationError(
            QStringLiteral("table %1 (%2 -> %3) cannot be restored: its target now belongs to %4, and one "
                           "target table takes one table's rows (restore it anyway with 'table restore %1 "
                           "--yes', then 'run --adopt --table %1' takes the target back)")
                .arg(id)
                .arg(removed->sourceDisplay(), removed->targetDisplay(), *owner));
    workspace->restoreTable(id);
    if (!uncheckable.isEmpty())
        writeError(QStringLiteral("warning: table %1 is restored, but whether another table owns its target "
                                  "'%2' could not be checked (its next run checks again): %3")
                       .arg(id)
                       .arg(removed->targetDisplay(), uncheckable));
    return 0;
}

int Commands::run(const QStringList &args) {
    const TerminationSignals interrupts;
    faultPoint("cli_run_setup"); // lets a test interrupt the set-up
    SubcommandParser parser(QStringLiteral("run"));
    parser.addValue(QStringLiteral("table"), QStringLiteral("ID"));
    parser.addValue(QStringLiteral("concurrency"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("trigger"), QStringLiteral("TRIGGER"));
    parser.addFlag(QStringLiteral("dry-run"));
    parser.addFlag(QStringLiteral("json"));
    parser.addFlag(QStringLiteral("adopt"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    RunRequest request;
    request.trigger = QStringLiteral("cli");
    request.dryRun = parser.isSet(QStringLiteral("dry-run"));
    request.tableIds = parseTableIds(parser.values(QStringLiteral("table")), parser.command());
    request.adopt = parser.isSet(QStringLiteral("adopt"));
    // Taking a target over from its owner is explicit: one named table at a time, never implied.
    if (request.adopt && request.tableIds.isEmpty())
        throw ValidationError(QStringLiteral("run --adopt: name the tables that take their targets over with "
                                             "--table ID"));
    if (request.adopt && request.dryRun)
        throw ValidationError(QStringLiteral("run --adopt: a dry run writes nothing, so it cannot take a "
                                             "target over"));
    if (parser.isSet(QStringLiteral("concurrency")))
        request.concurrency = int(optionInteger(parser, QStringLiteral("concurrency"), 1, kMaxConcurrency));
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
    if (const int signal = g_signal.load()) {
        writeError(QStringLiteral("interrupted (signal %1) before the run started: nothing ran").arg(signal));
        return 1;
    }

    qRegisterMetaType<tidemark::IterationRecord>("tidemark::IterationRecord");
    qRegisterMetaType<QList<tidemark::IterationRecord>>("QList<tidemark::IterationRecord>");
    qRegisterMetaType<tidemark::RunRecord>("tidemark::RunRecord");
    qRegisterMetaType<tidemark::LogLine>("tidemark::LogLine");

    RunCoordinator coordinator(path);
    bool done = false;
    int exitCode = 1;
    RunRecord finishedRun;
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
        if (const int signal = g_signal.load())
            writeError(interruptOutcome(signal, run));
        exitCode = exitCodeOf(run);
        finishedRun = run;
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

    bool cancelRequested = false;
    QTimer signalPoll;
    signalPoll.setInterval(100);
    QObject::connect(&signalPoll, &QTimer::timeout, [&] {
        const int signal = g_signal.load();
        if (signal == 0 || cancelRequested)
            return;
        cancelRequested = true;
        // Whether anything rolls back is only known at the end: an iteration may have committed.
        writeError(QStringLiteral("interrupted (signal %1): cancelling the run").arg(signal));
        coordinator.cancel();
    });
    signalPoll.start();

    if (coordinator.start(request) && !done)
        QCoreApplication::exec();
    signalPoll.stop();
    if (!done) {
        writeError(QStringLiteral("run did not start in workspace %1").arg(path));
        return 1;
    }
    if (finishedRun.id > 0) {
        AlertDispatcher alerts(path);
        alerts.notify(finishedRun);
        alerts.waitUntilIdle();
    }
    return exitCode;
}

int Commands::backfill(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("backfill"));
    parser.addValue(QStringLiteral("from"), QStringLiteral("VALUE"));
    for (const char *name : {"keep", "delete-newer", "truncate", "yes", "json"})
        parser.addFlag(QString::fromLatin1(name));
    const qint64 id =
        parseTableId(parser.parse(args, 1, 1, QStringLiteral("table ID")).first(), parser.command());
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    BackfillRequest request;
    request.tableId = id;
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
    // A truncate is a full reload: it starts from the initial watermark, never from a --from.
    if (request.action == BackfillTargetAction::Truncate) {
        if (parser.isSet(QStringLiteral("from")))
            throw ValidationError(
                QStringLiteral("backfill %1: --truncate reloads from the initial watermark; "
                               "--from cannot go with it (use --delete-newer to reload "
                               "only the rows after a value)")
                    .arg(id));
    } else {
        request.fromText = parser.required(QStringLiteral("from"));
    }
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

namespace {

// `history` prints this many runs unless --limit says otherwise (0: all).
constexpr int kDefaultHistoryLimit = 100;
// It reads them this many at a time and writes each page before reading the next: memory
// stays flat however long the history is, and small however wide the runs (a run of a thousand
// tables is a thousand iterations); a keyset page costs the same however deep it starts.
constexpr int kHistoryPageSize = 20;

} // namespace

int Commands::history(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("history"));
    parser.addValue(QStringLiteral("run"), QStringLiteral("RUN_ID"));
    parser.addValue(QStringLiteral("table"), QStringLiteral("ID"));
    parser.addValue(QStringLiteral("limit"), QStringLiteral("N"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    RunPageQuery query;
    if (parser.isSet(QStringLiteral("run")))
        query.runId = optionInteger(parser, QStringLiteral("run"), 1);
    if (parser.isSet(QStringLiteral("table")))
        query.tableId = optionInteger(parser, QStringLiteral("table"), 1);
    int limit = kDefaultHistoryLimit;
    if (parser.isSet(QStringLiteral("limit")))
        limit = int(optionInteger(parser, QStringLiteral("limit"), 0, kMaxHistoryLimit));

    const std::unique_ptr<Workspace> workspace = openWorkspace();
    // A removed table keeps its history.
    if (query.tableId > 0 && !workspace->table(query.tableId) && !workspace->archivedTable(query.tableId))
        throwNoSuchTable(*workspace, query.tableId);
    const bool json = parser.isSet(QStringLiteral("json"));
    std::optional<JsonArrayStream> array;
    qint64 written = 0;
    for (;;) {
        query.limit = limit > 0 ? int(std::min<qint64>(kHistoryPageSize, limit - written)) : kHistoryPageSize;
        const QList<RunRecord> page = workspace->runPage(query);
        if (query.runId > 0 && page.isEmpty())
            throw ValidationError(
                QStringLiteral("--run: no run %1 in workspace %2").arg(query.runId).arg(workspacePath()));
        if (json && !array)
            array.emplace([](const QByteArray &bytes) { writeOut(bytes); });
        for (const RunRecord &run : page) {
            if (json)
                array->append(runJson(run, true));
            else
                writeOut(historyText({run}));
        }
        written += page.size();
        if (page.size() < query.limit || (limit > 0 && written >= limit))
            break;
        query.before = RunCursor{page.last().startedAt, page.last().id};
    }
    if (array)
        array->finish();
    return 0;
}

namespace {

// "500ms", "30s", "2m" -> milliseconds; a ValidationError naming the command and the option
// otherwise. At most AlertSettings::kMaxTimeoutMs: `run` waits for its alerts before it exits, so a webhook
// that never answers must not keep a cron job (or the next one) waiting for a day.
int alertTimeoutMs(const QString &text, const QString &what) {
    const qint64 ms = parseDurationMs(text, what);
    if (ms > AlertSettings::kMaxTimeoutMs)
        throw ValidationError(QStringLiteral("%1: '%2' is longer than %3 (from 1ms to %3)")
                                  .arg(what, text, durationText(AlertSettings::kMaxTimeoutMs)));
    return int(ms);
}

void addAlertOptions(SubcommandParser &parser) {
    for (const char *name : {"hook", "hook-timeout", "hook-env", "webhook", "webhook-timeout", "on"})
        parser.addValue(QString::fromLatin1(name), QStringLiteral("VALUE"));
}

// Applies the alert options given (only those; "" removes the hook or webhook) to `settings`.
// Returns whether any was given. Refuses --on or a time limit with neither a hook nor a webhook
// to apply it to. A webhook secret in clear is refused when stored (checkWebhookUrl).
bool applyAlertOptions(const SubcommandParser &parser, AlertSettings &settings, const QString &command) {
    bool changed = false;
    if (parser.isSet(QStringLiteral("hook"))) {
        settings.hookCommand = parser.value(QStringLiteral("hook")).trimmed();
        changed = true;
    }
    if (parser.isSet(QStringLiteral("webhook"))) {
        settings.webhookUrl = parser.value(QStringLiteral("webhook")).trimmed();
        changed = true;
    }
    if (parser.isSet(QStringLiteral("hook-timeout"))) {
        settings.hookTimeoutMs = alertTimeoutMs(parser.value(QStringLiteral("hook-timeout")),
                                                command + QStringLiteral(": --hook-timeout"));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("webhook-timeout"))) {
        settings.webhookTimeoutMs = alertTimeoutMs(parser.value(QStringLiteral("webhook-timeout")),
                                                   command + QStringLiteral(": --webhook-timeout"));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("on"))) {
        settings.on = parseAlertStatuses(parser.value(QStringLiteral("on")));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("hook-env"))) {
        settings.hookEnv =
            parseHookEnv(parser.value(QStringLiteral("hook-env")), command + QStringLiteral(": --hook-env"));
        changed = true;
    }
    if (changed && settings.isEmpty() && !parser.isSet(QStringLiteral("hook")) &&
        !parser.isSet(QStringLiteral("webhook")))
        throw ValidationError(QStringLiteral("%1: no hook or webhook to apply this to; give --hook CMD "
                                             "or --webhook URL")
                                  .arg(command));
    return changed;
}

// A hook never gets the variables holding the workspace's secrets (the dispatcher withholds
// them); asking for one is refused here, so nobody counts on a variable that never arrives.
void refuseSecretHookEnv(Workspace &workspace, const AlertSettings &settings, const QString &command) {
    const QStringList secrets =
        AlertDispatcher::secretVariables(workspace) + secretReferences(settings.webhookUrl);
    for (const QString &name : settings.hookEnv) {
        if (secrets.contains(name))
            throw ValidationError(QStringLiteral("%1: --hook-env: %2 holds a secret of this workspace (a "
                                                 "connection's --password-env or a webhook's ${%2}); a "
                                                 "hook never gets it")
                                      .arg(command, name));
    }
}

} // namespace

int Commands::alertSet(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("alert set"));
    addAlertOptions(parser);
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    AlertSettings settings = workspace->alertSettings();
    if (!applyAlertOptions(parser, settings, QStringLiteral("alert set")))
        throw ValidationError(QStringLiteral(
            "alert set: give at least one of --hook, --webhook, --on, --hook-timeout, --hook-env, "
            "--webhook-timeout"));
    refuseSecretHookEnv(*workspace, settings, parser.command());
    workspace->setAlertSettings(settings);
    return 0;
}

int Commands::alertShow(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("alert show"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    const AlertSettings settings = openWorkspace()->alertSettings();
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(alertSettingsJson(settings)));
        return 0;
    }
    if (settings.isEmpty()) {
        writeOut(
            QStringLiteral("no alerts (set them with: tidemark-cli alert set --hook CMD | --webhook URL)\n"));
        return 0;
    }
    QString text;
    if (!settings.hookCommand.isEmpty())
        text += QStringLiteral("hook:    %1   (time limit %2)\n")
                    .arg(settings.hookCommand, durationText(settings.hookTimeoutMs));
    if (!settings.hookCommand.isEmpty() && !settings.hookEnv.isEmpty())
        text += QStringLiteral("hook env: %1\n").arg(settings.hookEnv.join(QStringLiteral(", ")));
    if (!settings.webhookUrl.isEmpty())
        text += QStringLiteral("webhook: %1   (retried for up to %2)\n")
                    .arg(settings.webhookUrl, durationText(settings.webhookTimeoutMs));
    text += QStringLiteral("on:      %1\n").arg(settings.on.join(QStringLiteral(", ")));
    writeOut(text);
    return 0;
}

int Commands::alertTest(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("alert test"));
    parser.addValue(QStringLiteral("run"), QStringLiteral("RUN_ID"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    AlertSettings settings = workspace->alertSettings();
    settings.withheldEnv = AlertDispatcher::secretVariables(*workspace);
    if (settings.isEmpty())
        throw ValidationError(QStringLiteral("alert test: no alerts set in workspace %1 (see alert set)")
                                  .arg(workspace->path()));
    RunRecord run;
    if (parser.isSet(QStringLiteral("run"))) {
        const qint64 runId = optionInteger(parser, QStringLiteral("run"), 1);
        const QList<RunRecord> runs = workspace->runs(1, runId);
        if (runs.isEmpty())
            throw ValidationError(
                QStringLiteral("--run: no run %1 in workspace %2").arg(runId).arg(workspace->path()));
        run = runs.first();
    } else {
        // A sample: run id 0 tells a receiver it is a test.
        run.trigger = QStringLiteral("cli");
        run.host = QSysInfo::machineHostName();
        run.pid = QCoreApplication::applicationPid();
        run.startedAt = run.finishedAt = QDateTime::currentDateTimeUtc();
        run.status = QStringLiteral("failed");
    }
    workspace.reset();

    AlertDispatcher alerts(workspacePath());
    int exitCode = 0;
    QObject::connect(&alerts, &AlertDispatcher::delivered, [&](const AlertDelivery &delivery) {
        writeOut(QStringLiteral("%1: %2 (%3)\n")
                     .arg(delivery.channel, delivery.ok ? QStringLiteral("ok") : QStringLiteral("FAILED"),
                          delivery.detail));
        if (!delivery.ok)
            exitCode = 1;
    });
    alerts.send(run, settings);
    alerts.waitUntilIdle();
    return exitCode;
}

int Commands::alertClear(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("alert clear"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    openWorkspace()->setAlertSettings(AlertSettings());
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
    QList<qint64> ids = parseTableIds(parser.values(QStringLiteral("table")), parser.command());
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

// --- schedules and the runner ---

namespace {

// The schedule's first fire times after `after`, at most `count`.
QList<QDateTime> fireTimesAfter(const ScheduleSpec &spec, QDateTime after, int count) {
    const CronFireTimes fireTimes;
    QList<QDateTime> times;
    while (times.size() < count) {
        after = fireTimes.nextAfter(spec, after);
        if (!after.isValid())
            break;
        times.append(after);
    }
    return times;
}

QDateTime nextRunAt(const ScheduleSpec &spec) {
    if (!spec.active)
        return {};
    const QList<QDateTime> next = fireTimesAfter(spec, QDateTime::currentDateTimeUtc(), 1);
    return next.isEmpty() ? QDateTime() : next.first();
}

// "hook+webhook on failed,warning", "-" for none.
QString scheduleAlertsText(const AlertSettings &alerts) {
    if (alerts.isEmpty())
        return QStringLiteral("-");
    QStringList channels;
    if (!alerts.hookCommand.isEmpty())
        channels << QStringLiteral("hook");
    if (!alerts.webhookUrl.isEmpty())
        channels << QStringLiteral("webhook");
    return QStringLiteral("%1 on %2").arg(channels.join(QLatin1Char('+')), alerts.on.join(QLatin1Char(',')));
}

ScheduleSpec requireSchedule(Workspace &workspace, const QString &name) {
    if (std::optional<ScheduleSpec> spec = workspace.schedule(name))
        return *spec;
    throw ValidationError(
        QStringLiteral("schedule '%1': no such schedule in workspace %2").arg(name, workspace.path()));
}

} // namespace

int Commands::schedule(const QString &sub, const QStringList &args) {
    if (sub == QLatin1String("add"))
        return scheduleAdd(args);
    if (sub == QLatin1String("edit"))
        return scheduleEdit(args);
    if (sub == QLatin1String("list"))
        return scheduleList(args);
    if (sub == QLatin1String("next"))
        return scheduleNext(args);
    if (sub == QLatin1String("pause"))
        return scheduleSetActive(args, QStringLiteral("schedule pause"), false);
    if (sub == QLatin1String("resume"))
        return scheduleSetActive(args, QStringLiteral("schedule resume"), true);
    if (sub == QLatin1String("remove"))
        return scheduleRemove(args);
    if (sub.isEmpty())
        throw ValidationError(
            QStringLiteral("schedule: missing subcommand (see tidemark-cli schedule --help)"));
    throw ValidationError(
        QStringLiteral("schedule: unknown subcommand '%1' (see tidemark-cli schedule --help)").arg(sub));
}

namespace {

void addScheduleOptions(SubcommandParser &parser) {
    parser.addValue(QStringLiteral("cron"), QStringLiteral("EXPR"));
    parser.addValue(QStringLiteral("tz"), QStringLiteral("ZONE"));
    parser.addValue(QStringLiteral("table"), QStringLiteral("ID"));
    parser.addValue(QStringLiteral("concurrency"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("retries"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("timeout"), QStringLiteral("DURATION"));
    addAlertOptions(parser);
}

// Applies the schedule options given to `spec` (`command` names the culprit in a refusal: "schedule
// add NAME"); returns whether any was given. Tables are checked when the workspace stores them.
bool applyScheduleOptions(const SubcommandParser &parser, ScheduleSpec &spec, const QString &command) {
    bool changed = false;
    if (parser.isSet(QStringLiteral("cron"))) {
        spec.cron = parser.value(QStringLiteral("cron")).trimmed();
        try {
            CronExpression::parse(spec.cron);
        } catch (const ValidationError &error) {
            throw ValidationError(
                QStringLiteral("%1: --cron '%2': %3").arg(command, spec.cron, error.message()));
        }
        changed = true;
    }
    if (parser.isSet(QStringLiteral("tz"))) {
        spec.timeZone = parser.value(QStringLiteral("tz")).trimmed();
        // Validity, not isTimeZoneIdAvailable(): that list leaves out links such as Etc/UTC, the
        // system zone of many servers.
        if (!QTimeZone(spec.timeZone.toUtf8()).isValid())
            throw ValidationError(
                QStringLiteral("%1: --tz: unknown time zone '%2' (an IANA zone such as Europe/Paris)")
                    .arg(command, spec.timeZone));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("cron")) || parser.isSet(QStringLiteral("tz"))) {
        // A valid expression may still name a date that never comes ("0 0 30 2 *"): refused now
        // rather than stored as a schedule that silently never runs. nextAfter() searches the
        // whole 400-year Gregorian cycle, so "never" is never.
        const QDateTime next = CronExpression::parse(spec.cron).nextAfter(QDateTime::currentDateTimeUtc(),
                                                                          QTimeZone(spec.timeZone.toUtf8()));
        if (!next.isValid())
            throw ValidationError(
                QStringLiteral("%1: --cron '%2' never fires: no month it names has the day of "
                               "month it names (February has at most 29 days; April, June, "
                               "September and November have 30)")
                    .arg(command, spec.cron));
    }
    if (parser.isSet(QStringLiteral("table"))) {
        spec.tableIds = parseTableIds(parser.values(QStringLiteral("table")), command);
        changed = true;
    }
    if (parser.isSet(QStringLiteral("concurrency"))) {
        spec.concurrency = int(parseInteger(parser.value(QStringLiteral("concurrency")),
                                            command + QStringLiteral(": --concurrency"), 1, kMaxConcurrency));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("retries"))) {
        spec.retries = int(parseInteger(parser.value(QStringLiteral("retries")),
                                        command + QStringLiteral(": --retries"), 0, kMaxRetries));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("timeout"))) {
        const QString what = command + QStringLiteral(": --timeout");
        spec.timeoutSeconds = parseDurationSeconds(parser.value(QStringLiteral("timeout")), what);
        if (spec.timeoutSeconds > kMaxIterationTimeoutSeconds)
            throw ValidationError(QStringLiteral("%1: '%2' is longer than %3 (from 1s to %3)")
                                      .arg(what, parser.value(QStringLiteral("timeout")),
                                           durationText(kMaxIterationTimeoutSeconds * 1000)));
        changed = true;
    }
    return applyAlertOptions(parser, spec.alerts, command) || changed;
}

} // namespace

int Commands::scheduleAdd(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("schedule add"));
    addScheduleOptions(parser);
    parser.addFlag(QStringLiteral("paused"));
    ScheduleSpec spec;
    spec.name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    if (spec.name.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("schedule add: the schedule needs a name"));
    parser.required(QStringLiteral("cron"));
    spec.timeZone = QString::fromUtf8(QTimeZone::systemTimeZoneId());
    if (spec.timeZone.isEmpty())
        spec.timeZone = QStringLiteral("UTC");
    applyScheduleOptions(parser, spec, QStringLiteral("schedule add %1").arg(spec.name));
    spec.active = !parser.isSet(QStringLiteral("paused"));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    for (const qint64 id : std::as_const(spec.tableIds))
        requireTable(*workspace, id);
    refuseSecretHookEnv(*workspace, spec.alerts, parser.command());
    workspace->addSchedule(spec);
    const QDateTime next = nextRunAt(spec);
    writeOut(QStringLiteral("schedule %1: %2\n")
                 .arg(spec.name, !spec.active     ? QStringLiteral("paused")
                                 : next.isValid() ? QStringLiteral("next run at %1").arg(isoUtc(next))
                                                  : QStringLiteral("never fires")));
    return 0;
}

int Commands::scheduleEdit(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("schedule edit"));
    addScheduleOptions(parser);
    parser.addFlag(QStringLiteral("all-tables"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const QString command = QStringLiteral("schedule edit %1").arg(name);
    if (parser.isSet(QStringLiteral("all-tables")) && parser.isSet(QStringLiteral("table")))
        throw ValidationError(QStringLiteral("%1: --all-tables and --table exclude each other").arg(command));

    std::unique_ptr<Workspace> workspace = openWorkspace();
    ScheduleSpec spec = requireSchedule(*workspace, name);
    bool changed = applyScheduleOptions(parser, spec, command);
    if (parser.isSet(QStringLiteral("all-tables"))) {
        spec.tableIds.clear();
        changed = true;
    }
    if (!changed)
        throw ValidationError(
            QStringLiteral("%1: nothing to change (see tidemark-cli %1 --help)").arg(command));
    for (const qint64 id : std::as_const(spec.tableIds))
        requireTable(*workspace, id);
    refuseSecretHookEnv(*workspace, spec.alerts, command);
    workspace->editSchedule(spec);
    return 0;
}

int Commands::scheduleList(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("schedule list"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    QJsonArray array;
    QList<QStringList> rows{{QStringLiteral("NAME"), QStringLiteral("CRON"), QStringLiteral("TZ"),
                             QStringLiteral("TABLES"), QStringLiteral("CONCURRENCY"),
                             QStringLiteral("RETRIES"), QStringLiteral("TIMEOUT"), QStringLiteral("ACTIVE"),
                             QStringLiteral("NEXT RUN"), QStringLiteral("LAST RUN"),
                             QStringLiteral("ALERTS")}};
    for (const ScheduleSpec &spec : workspace->schedules()) {
        const QDateTime next = nextRunAt(spec);
        const QString lastStatus = spec.lastRunId > 0 ? workspace->runStatus(spec.lastRunId) : QString();
        array.append(scheduleJson(spec, next, lastStatus));
        QStringList tables;
        for (const qint64 id : spec.tableIds)
            tables << QString::number(id);
        rows.append({spec.name, spec.cron, spec.timeZone,
                     tables.isEmpty() ? QStringLiteral("all active") : tables.join(QLatin1Char(',')),
                     QString::number(spec.concurrency), QString::number(spec.retries),
                     spec.timeoutSeconds > 0 ? durationText(spec.timeoutSeconds * 1000) : QStringLiteral("-"),
                     spec.active ? QStringLiteral("yes") : QStringLiteral("paused"),
                     next.isValid() ? isoUtc(next) : QStringLiteral("-"),
                     spec.lastRunId > 0 ? QStringLiteral("%1 (%2)").arg(spec.lastRunId).arg(lastStatus)
                                        : QStringLiteral("-"),
                     scheduleAlertsText(spec.alerts)});
    }
    writeOut(parser.isSet(QStringLiteral("json")) ? toJsonLine(array) : alignColumns(rows).toUtf8());
    return 0;
}

int Commands::scheduleNext(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("schedule next"));
    parser.addValue(QStringLiteral("count"), QStringLiteral("N"));
    parser.addValue(QStringLiteral("after"), QStringLiteral("ISO"));
    parser.addFlag(QStringLiteral("json"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    int count = 5;
    if (parser.isSet(QStringLiteral("count")))
        count = int(optionInteger(parser, QStringLiteral("count"), 1, kMaxNextCount));
    QDateTime after = QDateTime::currentDateTimeUtc();
    if (parser.isSet(QStringLiteral("after"))) {
        const std::optional<ParsedTimestamp> parsed =
            parseTimestamp(parser.value(QStringLiteral("after")).trimmed());
        if (!parsed)
            throw ValidationError(QStringLiteral("--after: '%1' is not an ISO-8601 time")
                                      .arg(parser.value(QStringLiteral("after"))));
        after = QDateTime::fromMSecsSinceEpoch(parsed->micros / 1000, Qt::UTC);
    }
    const ScheduleSpec spec = requireSchedule(*openWorkspace(), name);
    const QList<QDateTime> times = fireTimesAfter(spec, after, count);
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const QDateTime &time : times)
            array.append(isoUtc(time));
        writeOut(toJsonLine(array));
    } else {
        QString text;
        for (const QDateTime &time : times)
            text += isoUtc(time) + QLatin1Char('\n');
        writeOut(text);
    }
    return 0;
}

int Commands::scheduleSetActive(const QStringList &args, const QString &command, bool active) {
    SubcommandParser parser(command);
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    openWorkspace()->setScheduleActive(name, active);
    return 0;
}

int Commands::scheduleRemove(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("schedule remove"));
    const QString name = parser.parse(args, 1, 1, QStringLiteral("NAME")).first();
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    openWorkspace()->removeSchedule(name);
    return 0;
}

// The workspace's runner as its heartbeat row says: alive or not, and how its last firing went.
int Commands::runners(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("runners"));
    parser.addFlag(QStringLiteral("json"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    std::unique_ptr<Workspace> workspace = openWorkspace();
    const std::optional<RunnerHeartbeat> heartbeat = workspace->runner();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QJsonArray array;
    QList<QStringList> rows{{QStringLiteral("RUNNER"), QStringLiteral("VERSION"), QStringLiteral("STATE"),
                             QStringLiteral("STARTED"), QStringLiteral("LAST BEAT"),
                             QStringLiteral("LAST FIRING")}};
    if (heartbeat) {
        const RunnerStatus status = RunnerStatus::of(heartbeat, now);
        const bool alive = status.state == RunnerStatus::State::Running;
        const FiringOutcome &firing = heartbeat->lastFiring;
        const QString runner = QStringLiteral("%1:%2").arg(heartbeat->host).arg(heartbeat->pid);
        QJsonObject lastFiring;
        if (firing.at.isValid()) {
            lastFiring.insert(QStringLiteral("at"), isoUtc(firing.at));
            lastFiring.insert(QStringLiteral("schedule"), firing.schedule);
            lastFiring.insert(QStringLiteral("failed"), firing.failed());
            lastFiring.insert(QStringLiteral("error"),
                              firing.failed() ? QJsonValue(firing.error) : QJsonValue(QJsonValue::Null));
        }
        array.append(QJsonObject{
            {QStringLiteral("runner"), runner},
            {QStringLiteral("host"), heartbeat->host},
            {QStringLiteral("pid"), heartbeat->pid},
            {QStringLiteral("version"), heartbeat->version},
            {QStringLiteral("alive"), alive},
            {QStringLiteral("started_at"), isoUtc(heartbeat->startedAt)},
            {QStringLiteral("last_beat_at"), isoUtc(heartbeat->lastBeatAt)},
            {QStringLiteral("last_firing"),
             firing.at.isValid() ? QJsonValue(lastFiring) : QJsonValue(QJsonValue::Null)},
        });
        rows.append(
            {runner, heartbeat->version, alive ? QStringLiteral("alive") : QStringLiteral("stopped"),
             isoUtc(heartbeat->startedAt), isoUtc(heartbeat->lastBeatAt),
             !firing.at.isValid() ? QStringLiteral("-")
             : firing.failed()
                 ? QStringLiteral("FAILED %1 '%2': %3").arg(isoUtc(firing.at), firing.schedule, firing.error)
                 : QStringLiteral("ok %1 '%2'").arg(isoUtc(firing.at), firing.schedule)});
    }
    writeOut(parser.isSet(QStringLiteral("json")) ? toJsonLine(array) : alignColumns(rows).toUtf8());
    return 0;
}

int Commands::serve(const QStringList &args) {
    SubcommandParser parser(QStringLiteral("serve"));
    parser.addFlag(QStringLiteral("json-log"));
    parser.parse(args, 0, 0);
    if (parser.isSet(QStringLiteral("workspace")))
        m_workspace = parser.value(QStringLiteral("workspace"));
    const QString path = workspacePath();
    openWorkspace(); // refuses a missing or foreign file (exit 2); installs the log file
    spdlog::sink_ptr console;
    if (parser.isSet(QStringLiteral("json-log")))
        console = std::make_shared<JsonLogSink>();
    else
        console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_level(spdlog::level::info);
    replaceStderrSink(console);
    // A runner lives for days and may be killed: every line reaches the workspace log at once.
    spdlog::flush_on(spdlog::level::info);

    const SystemClock clock;
    const CronFireTimes fireTimes;
    Runner runner(path, clock, fireTimes);
    // Alerts of finished runs, and of dead processes' runs this runner closes as interrupted
    // (each closed run is alerted once, by whoever closed it). On SIGTERM, deliveries still in
    // flight are abandoned: the stop must take under 10 s.
    AlertDispatcher alerts(path);
    QObject::connect(&runner, &Runner::runFinished, &alerts,
                     [&alerts](const RunRecord &run) { alerts.notify(run); });
    QObject::connect(&runner, &Runner::firingFailed, &alerts,
                     [&alerts](const RunRecord &firing) { alerts.notify(firing); });
    QTimer interruptedRuns;
    interruptedRuns.setInterval(60'000);
    QObject::connect(&interruptedRuns, &QTimer::timeout, [&] {
        try {
            std::unique_ptr<Workspace> workspace = Workspace::open(path);
            alerts.closeInterruptedRuns(*workspace);
        } catch (const Error &error) {
            logger("cli")->warn("looking for interrupted runs: {}", str(error.message()));
        }
    });
    interruptedRuns.start();
    QObject::connect(&runner, &Runner::stopped, [] { QCoreApplication::exit(0); });
    // Exits at once, closing nothing (see Runner::workspaceReplaced): running iterations end with
    // the process, which the target's compare-and-set makes harmless; a fresh start (the unit's
    // Restart=on-failure) opens the new file.
    QObject::connect(&runner, &Runner::workspaceReplaced, [] {
        logger("cli")->error("exiting {}: a fresh start opens the new workspace file",
                             kExitWorkspaceReplaced);
        spdlog::apply_all([](const std::shared_ptr<spdlog::logger> &each) { each->flush(); });
        std::_Exit(kExitWorkspaceReplaced);
    });

    g_signal.store(0);
    std::signal(SIGINT, onTerminationSignal);
    std::signal(SIGTERM, onTerminationSignal);
    QTimer signalPoll;
    signalPoll.setInterval(100);
    QObject::connect(&signalPoll, &QTimer::timeout, [&] {
        const int signal = g_signal.exchange(0);
        if (signal == 0)
            return;
        logger("cli")->info("signal {}: stopping the runner; running iterations roll back", signal);
        runner.stop();
    });
    signalPoll.start();
    runner.start();
    QCoreApplication::exec();
    signalPoll.stop();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    return 0;
}

} // namespace tidemark::cli
