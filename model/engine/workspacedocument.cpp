// SPDX-License-Identifier: MIT
#include "model/engine/workspacedocument.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/statetable.h"
#include "model/domain/sourcezone.h"
#include "model/domain/tablehealth.h"
#include "model/engine/backfill.h"
#include "model/engine/tableedit.h"
#include "model/engine/tablesetup.h"
#include "model/engine/targetownership.h"
#include "model/schedule/cronexpression.h"
#include "model/storage/workspace.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTimeZone>

namespace tidemark {

namespace {

constexpr int kDocumentVersion = 1;
const char *const kFormat = "tidemark-workspace";
const char *const kCause = "apply";

QJsonValue optionalText(const QString &text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

QJsonValue tiebreakJson(const QVariant &tiebreak) {
    if (!tiebreak.isValid() || tiebreak.isNull())
        return QJsonValue(QJsonValue::Null);
    if (tiebreak.typeId() == QMetaType::QString)
        return tiebreak.toString();
    return QJsonValue(tiebreak.toLongLong());
}

// A cap (docs/design.md, "Caps"): null for none.
QJsonValue capJson(int cap) {
    return cap > 0 ? QJsonValue(cap) : QJsonValue(QJsonValue::Null);
}

QJsonObject connectionJson(const ConnectionSpec &spec) {
    const bool sqlite = spec.kind == ConnectionKind::Sqlite;
    return QJsonObject{
        {QStringLiteral("name"), spec.name},
        {QStringLiteral("kind"), connectionKindName(spec.kind)},
        {QStringLiteral("path"), sqlite ? optionalText(spec.path) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("conninfo"), sqlite ? QJsonValue(QJsonValue::Null) : optionalText(spec.conninfo)},
        {QStringLiteral("password_env"),
         sqlite ? QJsonValue(QJsonValue::Null) : optionalText(spec.passwordEnv)},
        {QStringLiteral("max_connections"), capJson(spec.maxConnections)},
    };
}

// A table's settings: everything `table add` and `table edit` set, not its state.
QJsonObject tableSettingsJson(const TableSpec &spec) {
    return QJsonObject{
        {QStringLiteral("source"), spec.sourceDisplay()},
        {QStringLiteral("target"), spec.targetDisplay()},
        {QStringLiteral("watermark_column"), optionalText(spec.watermarkColumn)},
        {QStringLiteral("watermark_type"), watermarkTypeName(spec.watermarkType)},
        {QStringLiteral("tiebreak_column"), optionalText(spec.tiebreakColumn)},
        {QStringLiteral("key_columns"), QJsonArray::fromStringList(spec.keyColumns)},
        {QStringLiteral("mode"), writeModeName(spec.mode)},
        {QStringLiteral("lookback"), optionalText(spec.lookback)},
        {QStringLiteral("initial_watermark"), optionalText(spec.initialWatermark.nativeText())},
        {QStringLiteral("max_skipped"), spec.maxSkipped},
        {QStringLiteral("expect_rows"), spec.expectRows},
        {QStringLiteral("commit_per_batch"), spec.commitPerBatch},
        {QStringLiteral("batch_size"), spec.batchSize},
        {QStringLiteral("add_new_columns"), spec.addNewColumns},
        {QStringLiteral("max_future"), optionalText(spec.maxFuture)},
        {QStringLiteral("max_jump"),
         spec.maxJump > 0 ? QJsonValue(spec.maxJump) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("stale_after"), optionalText(spec.staleAfter)},
        {QStringLiteral("deletes"), deletePolicyToJson(spec.deletes)},
        {QStringLiteral("source_timezone"), optionalText(spec.sourceTimezone)},
        {QStringLiteral("zero_dates"), zeroDatesName(spec.zeroDates)},
    };
}

QJsonValue positionJson(const Position &position) {
    if (position.isNull())
        return QJsonValue(QJsonValue::Null);
    return QJsonObject{{QStringLiteral("watermark"), position.watermark().nativeText()},
                       {QStringLiteral("tiebreak"), tiebreakJson(position.tiebreak())}};
}

QJsonValue alertsJson(const AlertSettings &alerts) {
    return alerts.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(alertSettingsToJson(alerts));
}

// A schedule's settings but its active flag; `tables` are its tables' targets.
QJsonObject scheduleSettingsJson(const ScheduleSpec &spec, const QStringList &tables) {
    return QJsonObject{
        {QStringLiteral("name"), spec.name},
        {QStringLiteral("cron"), spec.cron},
        {QStringLiteral("tz"), spec.timeZone},
        {QStringLiteral("tables"), QJsonArray::fromStringList(tables)},
        {QStringLiteral("concurrency"), spec.concurrency},
        {QStringLiteral("retries"), spec.retries},
        {QStringLiteral("timeout_seconds"), spec.timeoutSeconds},
        {QStringLiteral("alerts"), alertsJson(spec.alerts)},
    };
}

// Reads one JSON value of the document, naming where it is in every refusal.
class Field {
public:
    Field(QJsonValue value, QString where)
        : m_value(std::move(value))
        , m_where(std::move(where)) {}

    [[noreturn]] void refuse(const QString &what) const {
        throw ValidationError(QStringLiteral("%1: %2").arg(m_where, what));
    }
    Field operator[](const char *key) const {
        if (!m_value.isObject())
            refuse(QStringLiteral("not an object"));
        const QJsonObject object = m_value.toObject();
        if (!object.contains(QLatin1String(key)))
            refuse(QStringLiteral("no key '%1'").arg(QLatin1String(key)));
        return Field(object.value(QLatin1String(key)), m_where + QLatin1Char('.') + QLatin1String(key));
    }
    // A key documents of this version written before it existed lack: null when absent.
    Field optional(const char *key) const {
        if (m_value.isObject() && !m_value.toObject().contains(QLatin1String(key)))
            return Field(QJsonValue(QJsonValue::Null), m_where + QLatin1Char('.') + QLatin1String(key));
        return (*this)[key];
    }
    QList<Field> items() const {
        if (!m_value.isArray())
            refuse(QStringLiteral("not an array"));
        QList<Field> fields;
        const QJsonArray array = m_value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            fields.append(Field(array.at(i), QStringLiteral("%1[%2]").arg(m_where).arg(i)));
        return fields;
    }
    bool isNull() const { return m_value.isNull(); }
    QString text() const {
        if (!m_value.isString())
            refuse(QStringLiteral("not a string"));
        return m_value.toString();
    }
    QString optionalText() const { return isNull() ? QString() : text(); }
    qint64 integer(qint64 minimum, qint64 maximum = std::numeric_limits<qint64>::max()) const {
        // toInteger() falls back to its argument when the number is no exact 64-bit integer.
        const bool exact = m_value.isDouble() && m_value.toInteger(1) == m_value.toInteger(2);
        const qint64 value = m_value.toInteger();
        if (!exact || value < minimum || value > maximum)
            refuse(QStringLiteral("not an integer from %1 to %2").arg(minimum).arg(maximum));
        return value;
    }
    bool flag() const {
        if (!m_value.isBool())
            refuse(QStringLiteral("not true or false"));
        return m_value.toBool();
    }
    QStringList texts() const {
        QStringList list;
        for (const Field &item : items())
            list << item.text();
        return list;
    }
    const QJsonValue &value() const { return m_value; }
    const QString &where() const { return m_where; }

private:
    QJsonValue m_value;
    QString m_where;
};

QPair<QString, QString> connTable(const Field &field) {
    const QString text = field.text();
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0 || colon + 1 >= text.size())
        field.refuse(QStringLiteral("'%1' is not CONN:TABLE").arg(text));
    return {text.left(colon), text.mid(colon + 1)};
}

Watermark storedWatermark(const Field &field, WatermarkType type) {
    if (field.isNull())
        return Watermark();
    try {
        return Watermark::fromStored(type, field.text());
    } catch (const Error &error) {
        field.refuse(error.message());
    }
}

ConnectionSpec parseConnection(const Field &field) {
    ConnectionSpec spec;
    spec.name = field["name"].text();
    const QString kind = field["kind"].text();
    if (kind == QLatin1String("sqlite")) {
        spec.kind = ConnectionKind::Sqlite;
        spec.path = field["path"].text();
    } else if (kind == QLatin1String("postgres") || kind == QLatin1String("mysql")) {
        spec.kind = connectionKindFromName(kind);
        spec.conninfo = field["conninfo"].text();
        spec.passwordEnv = field["password_env"].optionalText();
    } else {
        field["kind"].refuse(QStringLiteral("'%1' is not sqlite, postgres or mysql").arg(kind));
    }
    if (const Field cap = field.optional("max_connections"); !cap.isNull())
        spec.maxConnections = int(cap.integer(1, kMaxCap));
    return spec;
}

WorkspaceDocument::Table parseTable(const Field &field) {
    WorkspaceDocument::Table table;
    TableSpec &spec = table.spec;
    std::tie(spec.sourceConnection, spec.sourceTable) = connTable(field["source"]);
    std::tie(spec.targetConnection, spec.targetTable) = connTable(field["target"]);
    spec.watermarkColumn = field["watermark_column"].optionalText();
    const Field type = field["watermark_type"];
    spec.watermarkType = watermarkTypeFromName(type.text());
    if (spec.watermarkType == WatermarkType::None && type.text() != QLatin1String("none"))
        type.refuse(QStringLiteral("'%1' is not timestamp, integer or none").arg(type.text()));
    spec.tiebreakColumn = field["tiebreak_column"].optionalText();
    spec.keyColumns = field["key_columns"].texts();
    const Field mode = field["mode"];
    const std::optional<WriteMode> writeMode = writeModeFromName(mode.text());
    if (!writeMode)
        mode.refuse(QStringLiteral("'%1' is not append, merge or overwrite").arg(mode.text()));
    spec.mode = *writeMode;
    spec.lookback = field["lookback"].optionalText();
    spec.initialWatermark = storedWatermark(field["initial_watermark"], spec.watermarkType);
    spec.maxSkipped = field["max_skipped"].integer(0);
    spec.expectRows = field["expect_rows"].flag();
    spec.commitPerBatch = field["commit_per_batch"].flag();
    spec.batchSize = int(field["batch_size"].integer(1, 1'000'000));
    spec.addNewColumns = field["add_new_columns"].flag();
    spec.maxFuture = field["max_future"].optionalText();
    spec.maxJump = field["max_jump"].isNull() ? 0 : field["max_jump"].integer(1);
    const Field staleAfter = field.optional("stale_after");
    spec.staleAfter = parseStaleAfter(staleAfter.optionalText(), staleAfter.where());
    if (const Field deletes = field.optional("deletes"); !deletes.isNull()) {
        if (!deletes.value().isObject())
            deletes.refuse(QStringLiteral("not an object"));
        spec.deletes = deletePolicyFromJson(deletes.value().toObject(), deletes.where());
    }
    // A document without it (written before the option) reads as UTC.
    const Field sourceTimezone = field.optional("source_timezone");
    if (!SourceZone::parse(sourceTimezone.optionalText(), sourceTimezone.where()).isUtc())
        spec.sourceTimezone = sourceTimezone.optionalText();
    // Likewise "fail" when missing.
    if (const Field zeroDates = field.optional("zero_dates"); !zeroDates.isNull()) {
        const std::optional<ZeroDates> policy = zeroDatesFromName(zeroDates.text());
        if (!policy)
            zeroDates.refuse(QStringLiteral("'%1' is not null or fail").arg(zeroDates.text()));
        spec.zeroDates = *policy;
    }
    spec.active = field["active"].flag();
    const Field position = field["position"];
    if (!position.isNull()) {
        const Watermark watermark = storedWatermark(position["watermark"], spec.watermarkType);
        const Field tiebreak = position["tiebreak"];
        QVariant tiebreakValue;
        if (tiebreak.value().isString())
            tiebreakValue = tiebreak.value().toString();
        else if (!tiebreak.isNull())
            tiebreakValue = tiebreak.integer(std::numeric_limits<qint64>::min());
        table.position = Position(watermark, tiebreakValue);
    }
    return table;
}

WorkspaceDocument::Schedule parseSchedule(const Field &field) {
    WorkspaceDocument::Schedule schedule;
    ScheduleSpec &spec = schedule.spec;
    spec.name = field["name"].text();
    spec.cron = field["cron"].text();
    try {
        CronExpression::parse(spec.cron);
    } catch (const ValidationError &error) {
        field["cron"].refuse(error.message());
    }
    spec.timeZone = field["tz"].text();
    if (!QTimeZone(spec.timeZone.toUtf8()).isValid())
        field["tz"].refuse(QStringLiteral("unknown time zone '%1'").arg(spec.timeZone));
    schedule.tables = field["tables"].texts();
    spec.concurrency = int(field["concurrency"].integer(1, 256));
    spec.retries = int(field["retries"].integer(0, 10));
    spec.timeoutSeconds = field["timeout_seconds"].integer(0);
    spec.active = field["active"].flag();
    if (!field["alerts"].isNull())
        spec.alerts = alertSettingsFromJson(field["alerts"].value().toObject());
    return schedule;
}

// The targets of a schedule's tables, by the ids the workspace gave them.
QStringList scheduleTargets(const ScheduleSpec &spec, const QHash<qint64, QString> &targetOf) {
    QStringList targets;
    for (const qint64 id : spec.tableIds)
        targets << targetOf.value(id, QStringLiteral("table %1").arg(id));
    return targets;
}

QString positionText(const Position &position) {
    return position.isNull() ? QStringLiteral("none") : position.display();
}

} // namespace

QByteArray WorkspaceDocument::exportFrom(Workspace &workspace) {
    QJsonArray connections;
    for (const ConnectionSpec &spec : workspace.connections())
        connections.append(connectionJson(spec));
    QJsonArray tables;
    QHash<qint64, QString> targetOf;
    for (const TableSpec &spec : workspace.tables()) {
        QJsonObject table = tableSettingsJson(spec);
        table.insert(QStringLiteral("active"), spec.active);
        table.insert(QStringLiteral("position"),
                     positionJson(Position(spec.lastWatermark, spec.lastTiebreak)));
        tables.append(table);
        targetOf.insert(spec.id, spec.targetDisplay());
    }
    QJsonArray schedules;
    for (const ScheduleSpec &spec : workspace.schedules()) {
        QJsonObject schedule = scheduleSettingsJson(spec, scheduleTargets(spec, targetOf));
        schedule.insert(QStringLiteral("active"), spec.active);
        schedules.append(schedule);
    }
    const QJsonObject document{
        {QStringLiteral("format"), QString::fromLatin1(kFormat)},
        {QStringLiteral("version"), kDocumentVersion},
        {QStringLiteral("connections"), connections},
        {QStringLiteral("tables"), tables},
        {QStringLiteral("schedules"), schedules},
        {QStringLiteral("alerts"), alertsJson(workspace.alertSettings())},
        {QStringLiteral("max_concurrency"), capJson(workspace.maxConcurrency())},
    };
    return QJsonDocument(document).toJson(QJsonDocument::Indented);
}

WorkspaceDocument WorkspaceDocument::parse(const QByteArray &json) {
    QJsonParseError error;
    const QJsonDocument parsed = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        throw ValidationError(
            QStringLiteral("not JSON: %1 at offset %2").arg(error.errorString()).arg(error.offset));
    const Field root(parsed.object(), QStringLiteral("document"));
    if (!parsed.isObject() ||
        parsed.object().value(QStringLiteral("format")) != QJsonValue(QString::fromLatin1(kFormat)))
        throw ValidationError(QStringLiteral("not a Tidemark workspace document (\"format\": \"%1\")")
                                  .arg(QString::fromLatin1(kFormat)));
    if (root["version"].integer(1) != kDocumentVersion)
        root["version"].refuse(QStringLiteral("this Tidemark reads version %1").arg(kDocumentVersion));
    WorkspaceDocument document;
    QSet<QString> names;
    for (const Field &field : root["connections"].items()) {
        const ConnectionSpec connection = parseConnection(field);
        if (names.contains(connection.name))
            field["name"].refuse(QStringLiteral("connection '%1' is listed twice").arg(connection.name));
        names.insert(connection.name);
        document.connections.append(connection);
    }
    QSet<QString> targets;
    for (const Field &field : root["tables"].items()) {
        document.tables.append(parseTable(field));
        const QString target = document.tables.last().spec.targetDisplay();
        if (targets.contains(target))
            field["target"].refuse(QStringLiteral("'%1' is the target of two tables: one target table takes "
                                                  "one table's rows")
                                       .arg(target));
        targets.insert(target);
        for (const QString &connection :
             {document.tables.last().spec.sourceConnection, document.tables.last().spec.targetConnection}) {
            if (!names.contains(connection))
                field.refuse(
                    QStringLiteral("connection '%1' is not in the document's connections").arg(connection));
        }
    }
    for (const Field &field : root["schedules"].items()) {
        document.schedules.append(parseSchedule(field));
        for (const QString &target : std::as_const(document.schedules.last().tables)) {
            if (!targets.contains(target))
                field["tables"].refuse(
                    QStringLiteral("'%1' is not the target of a table in the document").arg(target));
        }
    }
    if (!root["alerts"].isNull())
        document.alerts = alertSettingsFromJson(root["alerts"].value().toObject());
    if (const Field cap = root.optional("max_concurrency"); !cap.isNull())
        document.maxConcurrency = int(cap.integer(1, kMaxCap));
    return document;
}

WorkspaceApply::WorkspaceApply(Workspace &workspace, WorkspaceDocument document, bool prune)
    : m_workspace(workspace)
    , m_document(std::move(document))
    , m_prune(prune) {
    planConnections();
    planTables();
    planSchedules();
    planAlerts();
    planCaps();
    planPrune();
}

void WorkspaceApply::step(const QString &text, std::function<void()> run) {
    m_steps.append(Step{text, std::move(run)});
}

void WorkspaceApply::apply() {
    for (const Step &each : std::as_const(m_steps)) {
        if (each.run)
            each.run();
    }
}

void WorkspaceApply::planConnections() {
    for (const ConnectionSpec &wanted : std::as_const(m_document.connections)) {
        const std::optional<ConnectionSpec> stored = m_workspace.connection(wanted.name);
        if (!stored) {
            step(QStringLiteral("add connection %1 (%2)").arg(wanted.name, wanted.describe()),
                 [this, wanted] { addCheckedConnection(m_workspace, wanted); });
        } else if (connectionJson(*stored) != connectionJson(wanted)) {
            ConnectionSpec edited = *stored;
            edited.kind = wanted.kind;
            edited.path = wanted.path;
            edited.conninfo = wanted.conninfo;
            edited.passwordEnv = wanted.passwordEnv;
            edited.maxConnections = wanted.maxConnections;
            step(QStringLiteral("change connection %1: %2 -> %3")
                     .arg(wanted.name, stored->describe(), wanted.describe()),
                 [this, edited] { updateCheckedConnection(m_workspace, edited); });
        }
    }
}

void WorkspaceApply::planTables() {
    // A table a run is copying keeps its settings and position until that run has ended.
    QHash<qint64, QString> running;
    const IterationActivity activity = m_workspace.iterationActivity(std::nullopt);
    for (const IterationActivity::Open &open : activity.open)
        running.insert(open.tableId, open.status);
    QHash<QString, TableSpec> live;
    for (const TableSpec &spec : m_workspace.tables())
        live.insert(spec.targetDisplay(), spec);

    for (const WorkspaceDocument::Table &wanted : std::as_const(m_document.tables)) {
        const QString target = wanted.spec.targetDisplay();
        const auto found = live.constFind(target);
        if (found == live.constEnd()) {
            // A removed table keeps its target until it is restored or purged.
            for (const TableSpec &removed : m_workspace.archivedTables()) {
                if (removed.targetDisplay() == target)
                    throw ValidationError(
                        QStringLiteral("table %1: its target still belongs to removed table %2 (%3 -> %4); "
                                       "restore it with 'table restore %2' or free the target with 'table "
                                       "purge %2'")
                            .arg(target)
                            .arg(removed.id)
                            .arg(removed.sourceDisplay(), removed.targetDisplay()));
            }
            step(QStringLiteral("add table %1 -> %2%3%4")
                     .arg(wanted.spec.sourceDisplay(), target,
                          wanted.position.isNull()
                              ? QString()
                              : QStringLiteral(" at position %1 (taking its target over, as run --adopt)")
                                    .arg(positionText(wanted.position)),
                          wanted.spec.active ? QString() : QStringLiteral(", paused")),
                 [this, wanted] { addTable(wanted); });
            continue;
        }
        const TableSpec &stored = *found;
        const QString name = QStringLiteral("table %1 (%2)").arg(stored.id).arg(target);
        const Position storedPosition(stored.lastWatermark, stored.lastTiebreak);
        const bool settingsChanged = tableSettingsJson(stored) != tableSettingsJson(wanted.spec);
        const bool positionChanged = storedPosition != wanted.position;
        if ((settingsChanged || positionChanged) && running.contains(stored.id))
            throw ValidationError(
                QStringLiteral("%1 is running (an iteration %2): its %3 cannot change until "
                               "its run has ended; nothing was changed")
                    .arg(name, running.value(stored.id),
                         positionChanged ? QStringLiteral("position") : QStringLiteral("settings")));
        if (settingsChanged) {
            const QJsonObject before = tableSettingsJson(stored);
            const QJsonObject after = tableSettingsJson(wanted.spec);
            QStringList keys;
            for (auto it = after.begin(); it != after.end(); ++it) {
                if (before.value(it.key()) != it.value())
                    keys << it.key();
            }
            step(QStringLiteral("change %1: %2").arg(name, keys.join(QStringLiteral(", "))),
                 [this, stored, wanted] {
                     TableSpec edited = wanted.spec;
                     edited.id = stored.id;
                     edited.active = stored.active;
                     edited.lastWatermark = stored.lastWatermark;
                     edited.lastTiebreak = stored.lastTiebreak;
                     edited.lastGeneration = stored.lastGeneration;
                     applyTableEdit(m_workspace, stored, edited, false);
                 });
        }
        if (positionChanged)
            step(QStringLiteral("move %1: position %2 -> %3 (target rows kept)")
                     .arg(name, positionText(storedPosition), positionText(wanted.position)),
                 [this, target, wanted] { movePositionTo(target, wanted.position); });
        if (stored.active != wanted.spec.active) {
            const qint64 id = stored.id;
            const bool active = wanted.spec.active;
            step(QStringLiteral("%1 %2").arg(active ? QStringLiteral("resume") : QStringLiteral("pause"),
                                             name),
                 [this, id, active] { m_workspace.setActive(id, active); });
        }
    }
}

void WorkspaceApply::addTable(const WorkspaceDocument::Table &table) {
    TableSpec spec = table.spec;
    const qint64 id = m_workspace.addTable(spec);
    if (table.position.isNull())
        return;
    // The position describes what the target holds: take the target over from the workspace
    // that copied into it (its state row, with its position), so the next run goes on from there.
    const std::optional<ConnectionSpec> connection = m_workspace.connection(spec.targetConnection);
    const bool targetExists =
        connection && (connection->kind != ConnectionKind::Sqlite || QFileInfo::exists(connection->path));
    if (targetExists) {
        std::unique_ptr<TargetWriter> target = openConnector(*connection);
        TargetState claim{m_workspace.workspaceId(), id, Position(), 0, 0};
        claim.targetTable = stateTargetKey(target->parseTableName(spec.targetTable));
        claim.workspacePath = m_workspace.path();
        if (const std::optional<Adoption> adoption = adoptTarget(*target, claim, 0))
            m_workspace.followTargetState(id, adoption->state.generation, adoption->state.position,
                                          QString::fromLatin1(kCause), 0);
    }
    movePositionTo(spec.targetDisplay(), table.position);
}

void WorkspaceApply::movePositionTo(const QString &target, const Position &position) {
    const std::optional<TableSpec> spec = m_workspace.table(liveTableId(target));
    if (Position(spec->lastWatermark, spec->lastTiebreak) == position)
        return;
    movePosition(m_workspace, *spec, position, QString::fromLatin1(kCause));
}

qint64 WorkspaceApply::liveTableId(const QString &target) {
    for (const TableSpec &spec : m_workspace.tables()) {
        if (spec.targetDisplay() == target)
            return spec.id;
    }
    throw ValidationError(QStringLiteral("table %1: not in the workspace").arg(target));
}

void WorkspaceApply::planSchedules() {
    QHash<qint64, QString> targetOf;
    for (const TableSpec &spec : m_workspace.tables())
        targetOf.insert(spec.id, spec.targetDisplay());
    for (const WorkspaceDocument::Schedule &wanted : std::as_const(m_document.schedules)) {
        const std::optional<ScheduleSpec> stored = m_workspace.schedule(wanted.spec.name);
        // The tables' ids are known once the tables are added.
        const auto resolved = [this, wanted](qint64 id, qint64 lastRunId) {
            ScheduleSpec spec = wanted.spec;
            spec.id = id;
            spec.lastRunId = lastRunId;
            for (const QString &target : wanted.tables)
                spec.tableIds.append(liveTableId(target));
            return spec;
        };
        const QString name = QStringLiteral("schedule %1").arg(wanted.spec.name);
        if (!stored) {
            step(
                QStringLiteral("add %1 (%2%3)")
                    .arg(name, wanted.spec.cron, wanted.spec.active ? QString() : QStringLiteral(", paused")),
                [this, resolved] { m_workspace.addSchedule(resolved(0, 0)); });
            continue;
        }
        if (scheduleSettingsJson(*stored, scheduleTargets(*stored, targetOf)) !=
            scheduleSettingsJson(wanted.spec, wanted.tables))
            step(QStringLiteral("change %1").arg(name), [this, resolved, stored] {
                ScheduleSpec spec = resolved(stored->id, stored->lastRunId);
                spec.active = stored->active;
                m_workspace.editSchedule(spec);
            });
        if (stored->active != wanted.spec.active) {
            const bool active = wanted.spec.active;
            step(QStringLiteral("%1 %2").arg(active ? QStringLiteral("resume") : QStringLiteral("pause"),
                                             name),
                 [this, wanted, active] { m_workspace.setScheduleActive(wanted.spec.name, active); });
        }
    }
}

void WorkspaceApply::planCaps() {
    const int wanted = m_document.maxConcurrency;
    if (m_workspace.maxConcurrency() == wanted)
        return;
    step(wanted == 0 ? QStringLiteral("remove the workspace's max concurrency")
                     : QStringLiteral("set the workspace's max concurrency to %1").arg(wanted),
         [this, wanted] { m_workspace.setMaxConcurrency(wanted); });
}

void WorkspaceApply::planAlerts() {
    if (alertsJson(m_workspace.alertSettings()) == alertsJson(m_document.alerts))
        return;
    step(m_document.alerts.isEmpty() ? QStringLiteral("clear alerts") : QStringLiteral("change alerts"),
         [this] { m_workspace.setAlertSettings(m_document.alerts); });
}

void WorkspaceApply::planPrune() {
    // What the workspace holds and the document lacks: removed with --prune, else only named.
    const auto lacking = [this](const QString &what, std::function<void()> remove) {
        if (m_prune)
            step(QStringLiteral("remove %1").arg(what), std::move(remove));
        else
            step(QStringLiteral("keep %1: not in the document (--prune removes it)").arg(what), nullptr);
    };
    QSet<QString> schedules;
    for (const WorkspaceDocument::Schedule &schedule : std::as_const(m_document.schedules))
        schedules.insert(schedule.spec.name);
    for (const ScheduleSpec &spec : m_workspace.schedules()) {
        if (!schedules.contains(spec.name))
            lacking(QStringLiteral("schedule %1").arg(spec.name),
                    [this, name = spec.name] { m_workspace.removeSchedule(name); });
    }
    QSet<QString> targets;
    for (const WorkspaceDocument::Table &table : std::as_const(m_document.tables))
        targets.insert(table.spec.targetDisplay());
    for (const TableSpec &spec : m_workspace.tables()) {
        if (!targets.contains(spec.targetDisplay()))
            lacking(QStringLiteral("table %1 (%2 -> %3)")
                        .arg(spec.id)
                        .arg(spec.sourceDisplay(), spec.targetDisplay()),
                    [this, id = spec.id] { m_workspace.removeTable(id); });
    }
    QSet<QString> connections;
    for (const ConnectionSpec &connection : std::as_const(m_document.connections))
        connections.insert(connection.name);
    for (const ConnectionSpec &spec : m_workspace.connections()) {
        if (!connections.contains(spec.name))
            lacking(QStringLiteral("connection %1").arg(spec.name),
                    [this, name = spec.name] { m_workspace.removeConnection(name); });
    }
}

} // namespace tidemark
