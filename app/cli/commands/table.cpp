// SPDX-License-Identifier: MIT
// table add / edit / list / pause / resume / remove / position / set-position / restore / purge.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/domain/sourcezone.h"
#include "model/domain/tablehealth.h"
#include "model/engine/backfill.h"
#include "model/engine/remotework.h"
#include "model/engine/restoredtargetcheck.h"
#include "model/engine/tableedit.h"
#include "model/engine/tablepurge.h"
#include "model/engine/tablesetup.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QJsonArray>

#include <algorithm>

namespace tidemark::cli {

namespace {

// The options of `table add`, which `table edit` takes too (one list, so that the two never
// drift).
QList<OptionSpec> tableAddOptions() {
    const auto value = [](const char *name, const char *valueName, const char *help) {
        return OptionSpec{QString::fromLatin1(name), QString::fromLatin1(valueName),
                          QString::fromLatin1(help)};
    };
    const auto flag = [](const char *name, const char *help) {
        return OptionSpec{QString::fromLatin1(name), QString(), QString::fromLatin1(help)};
    };
    return {
        value("source", "CONN:TABLE", "the table copied from"),
        value("target", "CONN:TABLE", "the table copied into"),
        value("watermark", "COL", "the column whose growth marks new rows"),
        value("tiebreak", "COL", "orders rows of equal watermark"),
        value("key", "COL[,COL...]", "the key of a merge (default: the source's primary key)"),
        value("mode", "MODE", "append, merge or overwrite"),
        value("lookback", "VALUE", "re-reads this far behind the position (merge only)"),
        value("initial-watermark", "VALUE", "the first run copies the rows after it"),
        value("watermark-type", "TYPE", "timestamp or integer, when the column cannot tell"),
        value("max-skipped", "N", "rows a run may skip, kept as rejects"),
        value("batch-size", "N", "rows read and written at a time"),
        value("max-future", "DURATION", "holds back rows dated further ahead (or none)"),
        value("max-jump", "N", "holds back an integer watermark jumping further (or none)"),
        value("stale-after", "DURATION", "its health is stalled when its position stands still longer"),
        value("source-timezone", "ZONE", "the zone of a watermark without one (default UTC)"),
        value("zero-dates", "null|fail", "a MySQL/MariaDB zero date outside the watermark: NULL, or fail"),
        value("deletes", "ignore|remove|mark:COL", "what becomes of target rows the source deleted"),
        value("delete-check", "every|N", "looks for deletes after every N-th copy"),
        value("max-delete-ratio", "PERCENT", "refuses to delete more of the target's rows"),
        value("delete-grace", "DURATION", "never deletes rows copied more recently"),
        flag("expect-rows", "a run without new rows ends warning"),
        flag("paused", "added paused"),
        flag("commit-per-batch", "commits each batch with its position"),
        flag("add-new-columns", "adds the source's new columns to the target"),
    };
}

// `table edit` takes table add's options and its own: a reset of the position and the flags'
// way back.
QList<OptionSpec> tableEditOptions() {
    return tableAddOptions() +
           QList<OptionSpec>{
               {QStringLiteral("reset-position"),
                {},
                QStringLiteral("allows a change that voids the position: the target is emptied")},
               {QStringLiteral("no-expect-rows"), {}, QStringLiteral("a run without new rows is fine")},
               {QStringLiteral("no-commit-per-batch"),
                {},
                QStringLiteral("commits the whole window at once")},
               {QStringLiteral("no-add-new-columns"), {}, QStringLiteral("a new source column is not added")},
           };
}

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
    if (parser.isSet(QStringLiteral("stale-after")))
        spec.staleAfter = parseStaleAfter(parser.value(QStringLiteral("stale-after")),
                                          parser.command() + QStringLiteral(": --stale-after"));
    if (parser.isSet(QStringLiteral("source-timezone"))) {
        const QString zone = parser.value(QStringLiteral("source-timezone")).trimmed();
        spec.sourceTimezone =
            SourceZone::parse(zone, parser.command() + QStringLiteral(": --source-timezone")).isUtc()
                ? QString()
                : zone;
    }
    if (parser.isSet(QStringLiteral("zero-dates"))) {
        const QString name = parser.value(QStringLiteral("zero-dates")).trimmed();
        const std::optional<ZeroDates> policy = zeroDatesFromName(name);
        if (!policy)
            throw ValidationError(QStringLiteral("%1: --zero-dates: '%2' is not null or fail (null copies a "
                                                 "MySQL/MariaDB zero date as NULL; fail, the default, stops "
                                                 "the copy naming the column and the row)")
                                      .arg(parser.command(), name));
        spec.zeroDates = *policy;
    }
    const auto deleteOption = [&](const char *name) {
        return parser.command() + QStringLiteral(": --") + QString::fromLatin1(name);
    };
    if (parser.isSet(QStringLiteral("deletes")))
        parseDeleteAction(parser.value(QStringLiteral("deletes")), spec.deletes, deleteOption("deletes"));
    if (parser.isSet(QStringLiteral("delete-check")))
        spec.deletes.checkEvery =
            parseDeleteCheck(parser.value(QStringLiteral("delete-check")), deleteOption("delete-check"));
    if (parser.isSet(QStringLiteral("max-delete-ratio")))
        spec.deletes.maxPercent = parseDeletePercent(parser.value(QStringLiteral("max-delete-ratio")),
                                                     deleteOption("max-delete-ratio"));
    if (parser.isSet(QStringLiteral("delete-grace")))
        spec.deletes.grace =
            parseDeleteGrace(parser.value(QStringLiteral("delete-grace")), deleteOption("delete-grace"));
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

int tableAdd(CliSession &session, const SubcommandParser &parser) {
    TableDraft draft;
    applyTableOptions(parser, draft, false);
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    TableSpec prepared = prepareForCommand(*workspace, draft, parser.command());
    prepared.maxFuture = draft.spec.maxFuture;
    prepared.maxJump = draft.spec.maxJump;
    requireFittingGuards(prepared, parser.command());
    const qint64 id = workspace->addTable(prepared);
    writeOut(QStringLiteral("%1\n").arg(id));
    return 0;
}

int tableEdit(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    const QList<OptionSpec> settings = tableEditOptions();
    const bool anyGiven = std::any_of(settings.begin(), settings.end(), [&parser](const OptionSpec &option) {
        return parser.isSet(option.name);
    });
    if (!anyGiven)
        throw ValidationError(
            QStringLiteral("table edit %1: nothing to change (give the options of table add to change; see "
                           "tidemark-cli table edit --help)")
                .arg(id));

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const TableSpec before = requireTable(*workspace, id);
    TableDraft draft;
    draft.spec = before;
    // Checked again as table add checks it, against the source as it is now.
    if (!before.initialWatermark.isNull())
        draft.initialWatermarkText = before.initialWatermark.nativeText(); // as the source spells it
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

int tablePurge(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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

int tableList(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const QList<TableSpec> tables =
        parser.isSet(QStringLiteral("archived")) ? workspace->archivedTables() : workspace->tables();
    // A table whose last run failed, held rows back or found its source behind, or that stands
    // still past its --stale-after, is never shown as fine.
    const QHash<qint64, IterationRecord> last = workspace->lastFinishedIterations();
    const QHash<qint64, QDateTime> movedAt = workspace->positionsMovedAt();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto healthOf = [&](const TableSpec &spec) {
        return tableHealth(spec, last.value(spec.id), movedAt.value(spec.id), now);
    };
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const TableSpec &spec : tables) {
            const TableHealth health = healthOf(spec);
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
            const TableHealth health = healthOf(spec);
            if (health.name != QLatin1String("ok"))
                text += QStringLiteral("table %1 (%2) is %3: %4 (tidemark-cli history --table %1)\n")
                            .arg(spec.id)
                            .arg(spec.sourceDisplay(), health.name, health.reason);
        }
        writeOut(text);
    }
    return 0;
}

int tableSetActive(CliSession &session, const SubcommandParser &parser, bool active) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    requireTable(*workspace, id);
    workspace->setActive(id, active);
    return 0;
}

int tableRemove(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    requireTable(*workspace, id);
    workspace->removeTable(id);
    return 0;
}

// Where a table stands: the workspace's position and the target's state row, which the next
// run takes as the truth.
int tablePosition(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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
            {QStringLiteral("watermark"),
             watermarkJson(shownWatermark(position.workspace.watermark(), position.table.sourceTimezone))},
            {QStringLiteral("tiebreak"), tiebreakJson(position.workspace)},
            {QStringLiteral("target_watermark"),
             position.target
                 ? watermarkJson(shownWatermark(position.target->watermark(), position.table.sourceTimezone))
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

// The table's audit trail, oldest first: each move of its position, what made it, who and where.
// A removed table's too: its trail outlives it.
int tableChanges(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    if (!workspace->table(id) && !workspace->archivedTable(id))
        throwNoSuchTable(*workspace, id);
    const QList<WatermarkChange> changes = workspace->watermarkChanges(id);
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const WatermarkChange &change : changes)
            array.append(QJsonObject{
                {QStringLiteral("id"), change.id},
                {QStringLiteral("table_id"), change.tableId},
                {QStringLiteral("at"), timeJson(change.at)},
                {QStringLiteral("watermark_before"), watermarkJson(change.oldValue)},
                {QStringLiteral("watermark_after"), watermarkJson(change.newValue)},
                {QStringLiteral("cause"), change.cause},
                {QStringLiteral("run_id"), change.runId > 0 ? QJsonValue(change.runId) : QJsonValue()},
                {QStringLiteral("by"), change.by.isEmpty() ? QJsonValue() : QJsonValue(change.by)},
                {QStringLiteral("host"), change.host.isEmpty() ? QJsonValue() : QJsonValue(change.host)},
            });
        writeOut(toJsonLine(array));
        return 0;
    }
    writeOut(changesText(changes));
    return 0;
}

// Moves a table's position by hand, keeping the target's rows: a backfill --keep to any value.
int tableSetPosition(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    SetPositionRequest request;
    request.tableId = id;
    request.watermarkText = parser.required(QStringLiteral("watermark"));
    request.tiebreakText = parser.value(QStringLiteral("tiebreak"));
    request.confirmed = parser.isSet(QStringLiteral("yes"));
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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

int tableRestore(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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
int tablePause(CliSession &session, const SubcommandParser &parser) {
    return tableSetActive(session, parser, false);
}

int tableResume(CliSession &session, const SubcommandParser &parser) {
    return tableSetActive(session, parser, true);
}

} // namespace

QList<CommandSpec> tableCommands() {
    const QString id = QStringLiteral("table ID");
    return {
        {.name = QStringLiteral("table add"),
         .usage = QStringLiteral(R"(  table add --source CONN:TABLE --target CONN:TABLE --watermark COL
            [--tiebreak COL] [--key COL[,COL...]] [--mode append|merge|overwrite]
            [--lookback VALUE] [--initial-watermark VALUE] [--max-skipped N]
            [--expect-rows] [--paused] [--commit-per-batch] [--batch-size N]
            [--add-new-columns] [--watermark-type timestamp|integer]
            [--max-future DURATION|none] [--max-jump N] [--stale-after DURATION|none]
            [--deletes ignore|remove|mark:COL] [--delete-check every|N]
            [--max-delete-ratio PERCENT] [--delete-grace DURATION]
            [--source-timezone ZONE] [--zero-dates null|fail]
                                          prints the new table's id alone on stdout
            --max-skipped N: 0 to 9007199254740992 (2^53); --batch-size N: 1 to 1000000;
            --lookback: a duration for a timestamp watermark, a count (0 to 2^63-1) for an integer one;
            --initial-watermark: any 64-bit integer for an integer watermark;
            --max-future (timestamp watermark): 1m to 3650d, or none; default 1d: rows dated past
            now + DURATION are held back, counted (rows_future) and warned about, so one row dated
            3000 cannot freeze the table; --max-jump N (integer watermark): 1 to 2^63-1, default
            none: the same for a watermark moving more than N in one run (--max-jump none: no guard);
            --stale-after: 1m to 3650d, or none (the default): an active table whose position has
            not moved for longer, while its last run left rows above it or no run copied it for
            that long, is 'stalled' in table list (health, health_reason);
            --deletes: what reconcile does with target rows at or below the position whose key
            the source no longer has: ignore (the default), remove, or mark:COL (sets that
            nullable timestamp column); checked after every N-th successful copy (--delete-check,
            1 to 1000, default every) and by 'reconcile ID'; refused, deleting nothing, above
            --max-delete-ratio (above 0 to 100, default 5%) or when the source has no rows;
            rows copied within --delete-grace (0s to 3650d; default one run interval, the
            longest between two firings of the cron entries that run it, else 1h) are kept;
            --zero-dates (a MySQL/MariaDB source): a zero date ('0000-00-00', '2024-00-15')
            outside the watermark column fails the copy naming the column and the row's key
            (fail, the default) or is copied as NULL (null); in the watermark column it is never
            selected either way, counted like a NULL)"),
         .options = tableAddOptions(),
         .handler = tableAdd},
        {.name = QStringLiteral("table edit"),
         .usage = QStringLiteral(
             R"(  table edit ID [the options of table add] [--reset-position] [--no-expect-rows]
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
                                      keeps its rows and is released)"),
         .options = tableEditOptions(),
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableEdit,
         .alsoShow = QStringLiteral("table add")},
        {.name = QStringLiteral("table list"),
         .usage = QStringLiteral(
             R"(  table list [--json] [--archived]    --archived lists the removed tables instead)"),
         .options = {kJsonOption,
                     {QStringLiteral("archived"), {}, QStringLiteral("lists the removed tables")}},
         .handler = tableList},
        {.name = QStringLiteral("table pause"),
         .usage = QStringLiteral(R"(  table pause ID | table resume ID | table remove ID)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tablePause},
        {.name = QStringLiteral("table resume"),
         .usage = {},
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableResume},
        {.name = QStringLiteral("table remove"),
         .usage = {},
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableRemove},
        {.name = QStringLiteral("table position"),
         .usage = QStringLiteral(
             R"(  table position ID [--json]          the table's position in the workspace and in the target's
                                      state row (the truth: the next run takes it))"),
         .options = {kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tablePosition},
        {.name = QStringLiteral("table changes"),
         .usage = QStringLiteral(
             R"(  table changes ID [--json]           the table's audit trail: each move of its position, its
                                      cause and run, who made it and on which host)"),
         .options = {kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableChanges},
        {.name = QStringLiteral("table set-position"),
         .usage =
             QStringLiteral(R"(  table set-position ID --watermark VALUE [--tiebreak VALUE] [--yes] [--json]
                                      moves the position, keeping the target's rows (as backfill
                                      --keep): refused while the table runs; --yes is needed to
                                      move forward (rows passed over are never copied) and to
                                      move an append table back (rows copied twice); recorded
                                      as a watermark change with cause set-position)"),
         .options = {{QStringLiteral("watermark"), QStringLiteral("VALUE"),
                      QStringLiteral("the new position")},
                     {QStringLiteral("tiebreak"), QStringLiteral("VALUE"),
                      QStringLiteral("the new position's tiebreak")},
                     kYesOption,
                     kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableSetPosition},
        {.name = QStringLiteral("table restore"),
         .usage = QStringLiteral(
             R"(  table restore ID [--yes]            brings a removed table back, same id and position;
                                      refused when another table writes or owns its target
                                      (--yes: even so when the target records another owner))"),
         .options = {kYesOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tableRestore},
        {.name = QStringLiteral("table purge"),
         .usage = QStringLiteral(
             R"(  table purge ID [--yes]              forgets a removed table for good and releases its target:
                                      its tidemark_state row there is deleted, its rows stay;
                                      refused while the target still holds rows or cannot be
                                      reached, unless --yes; its history stays)"),
         .options = {kYesOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = id,
         .handler = tablePurge},
    };
}

} // namespace tidemark::cli
