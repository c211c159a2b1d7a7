// SPDX-License-Identifier: MIT
// Which tables are stalled, read from a real workspace at chosen instants, and their alarm: sent
// once per stall whoever looks, again after the table moved and stalled anew. Runs on workspace
// files and on server workspaces (tests/support/workspacebackend.h).

#include "model/alerts/alertdispatcher.h"
#include "model/domain/watermark.h"
#include "model/engine/stalledtables.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tidemark;

class TestStalledTables : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void standingStillPastStaleAfterIsStalled();
    void withoutStaleAfterNothingStalls();
    void eachStallIsRaisedOnce();
    void alarmGoesThroughTheWorkspaceHook();

private:
    qint64 addTable(const QString &target, const QString &staleAfter);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_location;
    std::unique_ptr<Workspace> m_workspace;
};

void TestStalledTables::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestStalledTables::init() {
    m_dir = std::make_unique<QTemporaryDir>(test::fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_location = test::testWorkspaceLocation(*m_dir, QStringLiteral("w.tidemark"));
    m_workspace = Workspace::create(m_location);
}

qint64 TestStalledTables::addTable(const QString &target, const QString &staleAfter) {
    TableSpec spec;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("orders");
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = target;
    spec.watermarkColumn = QStringLiteral("id");
    spec.watermarkType = WatermarkType::Integer;
    spec.staleAfter = staleAfter;
    return m_workspace->addTable(spec);
}

void TestStalledTables::standingStillPastStaleAfterIsStalled() {
    const qint64 watched = addTable(QStringLiteral("watched"), QStringLiteral("1h"));
    addTable(QStringLiteral("unwatched"), QString());
    const QDateTime added = QDateTime::currentDateTimeUtc();

    QVERIFY(stalledTables(*m_workspace, added.addSecs(30 * 60)).isEmpty());
    QHash<qint64, QString> stalled = stalledTables(*m_workspace, added.addSecs(2 * 3600));
    QCOMPARE(stalled.keys(), QList<qint64>{watched}); // the table without --stale-after never stalls
    QVERIFY2(stalled.value(watched).contains(QStringLiteral("no run has copied it since it was added")),
             qPrintable(stalled.value(watched)));

    // A position that moves starts the clock again.
    m_workspace->setWatermark(watched, Watermark::integer(10), QVariant(), QStringLiteral("set-position"), 0);
    const QDateTime moved = QDateTime::currentDateTimeUtc();
    QVERIFY(stalledTables(*m_workspace, moved.addSecs(30 * 60)).isEmpty());
    QCOMPARE(stalledTables(*m_workspace, moved.addSecs(2 * 3600)).keys(), QList<qint64>{watched});

    // A paused table stands still on purpose.
    m_workspace->setActive(watched, false);
    QVERIFY(stalledTables(*m_workspace, moved.addSecs(2 * 3600)).isEmpty());
}

void TestStalledTables::withoutStaleAfterNothingStalls() {
    addTable(QStringLiteral("orders"), QString());
    QVERIFY(stalledTables(*m_workspace, QDateTime::currentDateTimeUtc().addYears(5)).isEmpty());
}

// Two connections stand for two processes looking at once (a runner and a cron `run`).
void TestStalledTables::eachStallIsRaisedOnce() {
    const qint64 first = addTable(QStringLiteral("first"), QStringLiteral("1h"));
    const qint64 second = addTable(QStringLiteral("second"), QStringLiteral("1h"));
    const std::unique_ptr<Workspace> other = Workspace::open(m_location);
    const QDateTime now = QDateTime::currentDateTimeUtc();

    QCOMPARE(m_workspace->raiseStalledAlarms({first}, now), QList<qint64>{first});
    QCOMPARE(other->raiseStalledAlarms({first}, now.addSecs(60)), QList<qint64>{});
    QCOMPARE(other->raiseStalledAlarms({first, second}, now.addSecs(120)), QList<qint64>{second});
    QCOMPARE(m_workspace->raiseStalledAlarms({first, second}, now.addSecs(180)), QList<qint64>{});

    // The first moved: forgotten, so its next stall is raised again; the second's still stands.
    QCOMPARE(other->raiseStalledAlarms({second}, now.addSecs(240)), QList<qint64>{});
    QCOMPARE(m_workspace->raiseStalledAlarms({first, second}, now.addSecs(300)), QList<qint64>{first});
    QCOMPARE(test::execWorkspaceSql(m_location, QStringLiteral("SELECT count(*) FROM table_alarms")),
             QStringLiteral("2"));
    QCOMPARE(other->raiseStalledAlarms({}, now.addSecs(360)), QList<qint64>{});
    QCOMPARE(test::execWorkspaceSql(m_location, QStringLiteral("SELECT count(*) FROM table_alarms")),
             QStringLiteral("0"));
}

void TestStalledTables::alarmGoesThroughTheWorkspaceHook() {
    const qint64 watched = addTable(QStringLiteral("watched"), QStringLiteral("1h"));
    addTable(QStringLiteral("quiet"), QString());
    const QString out = m_dir->filePath(QStringLiteral("alarms.jsonl"));
    AlertSettings settings = m_workspace->alertSettings();
    QVERIFY(settings.on.contains(QStringLiteral("stalled"))); // a new workspace's default
    settings.hookCommand =
        QStringLiteral("cat >> '%1'; echo \"$TIDEMARK_TABLE_ID $TIDEMARK_TABLE_HEALTH\" >> '%1.env'")
            .arg(out);
    settings.on = {QStringLiteral("failed")};
    m_workspace->setAlertSettings(settings);
    const QDateTime later = QDateTime::currentDateTimeUtc().addSecs(2 * 3600);

    AlertDispatcher alerts(m_location);
    // Alerts that do not ask for "stalled" send nothing and record nothing: once they ask, the
    // stall going on is raised.
    QCOMPARE(alerts.raiseStalledAlarms(*m_workspace, later), 0);
    settings.on << QStringLiteral("stalled");
    m_workspace->setAlertSettings(settings);
    QCOMPARE(alerts.raiseStalledAlarms(*m_workspace, later), 1);
    alerts.waitUntilIdle();
    QCOMPARE(alerts.raiseStalledAlarms(*m_workspace, later.addSecs(60)), 0);
    alerts.waitUntilIdle();

    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    const QJsonObject alarm = QJsonDocument::fromJson(lines.first()).object();
    QCOMPARE(alarm.value(QStringLiteral("kind")).toString(), QStringLiteral("table_health"));
    QCOMPARE(alarm.value(QStringLiteral("health")).toString(), QStringLiteral("stalled"));
    QCOMPARE(alarm.value(QStringLiteral("table_id")).toInteger(), watched);
    QCOMPARE(alarm.value(QStringLiteral("source")).toString(), QStringLiteral("src:orders"));
    QCOMPARE(alarm.value(QStringLiteral("target")).toString(), QStringLiteral("dst:watched"));
    QCOMPARE(alarm.value(QStringLiteral("stale_after")).toString(), QStringLiteral("1h"));
    QCOMPARE(alarm.value(QStringLiteral("workspace")).toString(), m_location);
    QVERIFY2(alarm.value(QStringLiteral("reason")).toString().contains(QStringLiteral("has not moved since")),
             lines.first().constData());
    QFile env(out + QStringLiteral(".env"));
    QVERIFY(env.open(QIODevice::ReadOnly));
    QCOMPARE(env.readAll().trimmed(), QStringLiteral("%1 stalled").arg(watched).toUtf8());
}

QTEST_GUILESS_MAIN(TestStalledTables)
#include "tst_stalledtables.moc"
