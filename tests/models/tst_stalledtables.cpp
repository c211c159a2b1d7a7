// SPDX-License-Identifier: MIT
// Which tables the window shows as stalled, read from a real workspace at chosen instants.

#include "model/domain/watermark.h"
#include "model/models/stalledtables.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tidemark;

class tst_StalledTables : public QObject {
    Q_OBJECT

private slots:
    void init();
    void standingStillPastStaleAfterIsStalled();
    void withoutStaleAfterNothingStalls();

private:
    qint64 addTable(const QString &target, const QString &staleAfter);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Workspace> m_workspace;
};

void tst_StalledTables::init() {
    m_dir = std::make_unique<QTemporaryDir>(test::fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_workspace = Workspace::create(m_dir->filePath(QStringLiteral("w.tidemark")));
}

qint64 tst_StalledTables::addTable(const QString &target, const QString &staleAfter) {
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

void tst_StalledTables::standingStillPastStaleAfterIsStalled() {
    const qint64 watched = addTable(QStringLiteral("watched"), QStringLiteral("1h"));
    const qint64 unwatched = addTable(QStringLiteral("unwatched"), QString());
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
    Q_UNUSED(unwatched);
}

void tst_StalledTables::withoutStaleAfterNothingStalls() {
    addTable(QStringLiteral("orders"), QString());
    QVERIFY(stalledTables(*m_workspace, QDateTime::currentDateTimeUtc().addYears(5)).isEmpty());
}

QTEST_GUILESS_MAIN(tst_StalledTables)
#include "tst_stalledtables.moc"
