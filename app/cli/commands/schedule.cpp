// SPDX-License-Identifier: MIT
// schedule add / edit / list / next / pause / resume / remove.
#include "app/cli/alertoptions.h"
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/schedule/cronexpression.h"
#include "model/schedule/upcomingfirings.h"
#include "model/storage/workspace.h"

#include <QJsonArray>
#include <QTimeZone>

namespace tidemark::cli {

namespace {

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
    changed = applyAlertOptions(parser, spec.alerts, command) || changed;
    if (spec.alerts.on.contains(QStringLiteral("stalled")))
        throw ValidationError(
            QStringLiteral("%1: --on stalled: a schedule's alerts are its runs' (one of %2); "
                           "a stalled table is alarmed by the workspace's alerts "
                           "(alert set --on ...,stalled)")
                .arg(command, AlertSettings::runStatuses().join(QLatin1Char(','))));
    return changed;
}

int scheduleAdd(CliSession &session, const SubcommandParser &parser) {
    ScheduleSpec spec;
    spec.name = parser.positional().first();
    if (spec.name.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("schedule add: the schedule needs a name"));
    parser.required(QStringLiteral("cron"));
    spec.timeZone = QString::fromUtf8(QTimeZone::systemTimeZoneId());
    if (spec.timeZone.isEmpty())
        spec.timeZone = QStringLiteral("UTC");
    applyScheduleOptions(parser, spec, QStringLiteral("schedule add %1").arg(spec.name));
    spec.active = !parser.isSet(QStringLiteral("paused"));

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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

int scheduleEdit(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    const QString command = QStringLiteral("schedule edit %1").arg(name);
    if (parser.isSet(QStringLiteral("all-tables")) && parser.isSet(QStringLiteral("table")))
        throw ValidationError(QStringLiteral("%1: --all-tables and --table exclude each other").arg(command));

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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

int scheduleList(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
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

int scheduleNext(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
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
    const ScheduleSpec spec = requireSchedule(*session.openWorkspace(), name);
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

int scheduleSetActive(CliSession &session, const SubcommandParser &parser, bool active) {
    const QString name = parser.positional().first();
    session.openWorkspace()->setScheduleActive(name, active);
    return 0;
}

int scheduleRemove(CliSession &session, const SubcommandParser &parser) {
    const QString name = parser.positional().first();
    session.openWorkspace()->removeSchedule(name);
    return 0;
}
int schedulePause(CliSession &session, const SubcommandParser &parser) {
    return scheduleSetActive(session, parser, false);
}

int scheduleResume(CliSession &session, const SubcommandParser &parser) {
    return scheduleSetActive(session, parser, true);
}

// The options of schedule add and schedule edit: when, which tables, how, and its own alerts.
QList<OptionSpec> scheduleOptions() {
    return QList<OptionSpec>{
               {QStringLiteral("cron"), QStringLiteral("EXPR"),
                QStringLiteral("when it fires: 5 or 6 cron fields, or @daily ...")},
               {QStringLiteral("tz"), QStringLiteral("ZONE"),
                QStringLiteral("the IANA zone of the cron (default: the machine's)")},
               {QStringLiteral("table"), QStringLiteral("ID"),
                QStringLiteral("runs this table (repeatable; default: every active table)")},
               {QStringLiteral("concurrency"), QStringLiteral("N"), QStringLiteral("tables copied at once")},
               {QStringLiteral("retries"), QStringLiteral("N"),
                QStringLiteral("retries of an iteration failed by a transient error")},
               {QStringLiteral("timeout"), QStringLiteral("DURATION"),
                QStringLiteral("cancels an iteration that runs longer")},
           } +
           alertOptions();
}

} // namespace

QList<CommandSpec> scheduleCommands() {
    const QString name = QStringLiteral("NAME");
    return {
        {.name = QStringLiteral("schedule add"),
         .usage =
             QStringLiteral(R"(  schedule add NAME --cron EXPR [--tz ZONE] [--table ID]... [--concurrency N]
               [--retries N] [--timeout DURATION] [--paused]
               [--hook CMD] [--hook-timeout DURATION] [--hook-env VAR[,VAR...]] [--webhook URL]
               [--webhook-timeout DURATION] [--on STATUS[,STATUS...]]
                                          the schedule's own alerts, sent for its runs besides
                                          the workspace's (alert set)
               --concurrency N: 1 to 256; --retries N: 0 to 10; --timeout: 1s to 7d; a cron that
               never fires (e.g. "0 0 30 2 *") is refused)"),
         .options = scheduleOptions() +
                    QList<OptionSpec>{{QStringLiteral("paused"), {}, QStringLiteral("added paused")}},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = scheduleAdd},
        {.name = QStringLiteral("schedule edit"),
         .usage = QStringLiteral(
             R"(  schedule edit NAME [--cron EXPR] [--tz ZONE] [--table ID]... | [--all-tables] [--concurrency N]
               [--retries N] [--timeout DURATION] [--hook CMD] [--webhook URL] [--on ...] ...
                                          only the options given change; "" removes a hook or webhook)"),
         .options = scheduleOptions() +
                    QList<OptionSpec>{
                        {QStringLiteral("all-tables"), {}, QStringLiteral("runs every active table again")}},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = scheduleEdit},
        {.name = QStringLiteral("schedule list"),
         .usage = QStringLiteral(R"(  schedule list [--json])"),
         .options = {kJsonOption},
         .handler = scheduleList},
        {.name = QStringLiteral("schedule next"),
         .usage = QStringLiteral(
             R"(  schedule next NAME [--count N] [--after ISO] [--json]   the next fire times, UTC ISO;
                                                          --count N: 1 to 1000 (default 5))"),
         .options = {{QStringLiteral("count"), QStringLiteral("N"), QStringLiteral("how many fire times")},
                     {QStringLiteral("after"), QStringLiteral("ISO"),
                      QStringLiteral("from this time on (default: now)")},
                     kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = scheduleNext},
        {.name = QStringLiteral("schedule pause"),
         .usage = QStringLiteral(R"(  schedule pause NAME | schedule resume NAME | schedule remove NAME)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = schedulePause},
        {.name = QStringLiteral("schedule resume"),
         .usage = {},
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = scheduleResume},
        {.name = QStringLiteral("schedule remove"),
         .usage = {},
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = name,
         .handler = scheduleRemove},
    };
}

} // namespace tidemark::cli
