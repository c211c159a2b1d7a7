// SPDX-License-Identifier: MIT
// The analyst's path through the real widgets: the Add Table dialog speaks the user's words,
// decides nothing for the user (no connection, table or watermark chosen before the user picks,
// unless every table goes the same way), refuses a copy onto the source table itself, puts the
// focus on the field at fault after a refused OK, suggests the watermark with its reason, keeps its layout,
// and reads the source on its own queue (the window stays responsive and the workspace free while a describe
// runs; a newer choice or Cancel interrupts it). The Connections dialog's test is cancellable. Closing the
// window's gateway keeps queued edits.

#include "model/common/error.h"
#include "model/engine/remotework.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/support/historyfill.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/connections/connectionsdialog.h"
#include "ui/controltable/tabledialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThreadPool>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// A view whose rows never end: describing it scans a column until interrupted.
const QString kEndlessView =
    QStringLiteral("CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                   "SELECT x AS id, x AS n FROM c");

template <typename T> T *child(QWidget &parent, const char *name) {
    auto *widget = parent.findChild<T *>(QString::fromLatin1(name));
    if (!widget)
        qFatal("no widget %s", name);
    return widget;
}

// Picks `text` from an editable combo as a user does: typed, then confirmed with Enter.
void chooseTable(QComboBox *combo, const QString &text) {
    combo->lineEdit()->selectAll();
    QTest::keyClicks(combo->lineEdit(), text);
    QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
}

// Chooses the fixture's "src" as the source and waits until its `tables` tables are listed.
void chooseSource(QWidget &dialog, int tables) {
    auto *source = dialog.findChild<QComboBox *>(QStringLiteral("sourceConnection"));
    QTRY_VERIFY(source->findData(QStringLiteral("src")) >= 0);
    source->setCurrentIndex(source->findData(QStringLiteral("src")));
    QTRY_COMPARE(dialog.findChild<QComboBox *>(QStringLiteral("sourceTable"))->count(), tables);
}

// The dialog shown, src:orders chosen and copied into dst, with nothing left to complain about.
void chooseOrdersIntoDst(TableDialog &dialog) {
    dialog.show();
    chooseSource(dialog, 1);
    if (QTest::currentTestFailed())
        return;
    chooseTable(dialog.findChild<QComboBox *>(QStringLiteral("sourceTable")), QStringLiteral("orders"));
    QTRY_VERIFY(dialog.columnsLoaded());
    auto *target = dialog.findChild<QComboBox *>(QStringLiteral("targetConnection"));
    target->setCurrentIndex(target->findData(QStringLiteral("dst")));
    QTRY_VERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(QLatin1Char('\n'))));
}

void addConnection(const UiFixture &fixture, const QString &name, const QString &path) {
    ConnectionSpec spec;
    spec.name = name;
    spec.path = path;
    fixture.open()->addConnection(spec);
}

} // namespace

class TestAddTable : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void speaksTheUsersWords() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        makeOrders(fixture.src, 3, 1, QStringLiteral("returns"));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        auto *sourceTable = child<QComboBox>(dialog, "sourceTable");
        chooseSource(dialog, 2);
        if (QTest::currentTestFailed())
            return;
        // Two tables: none is chosen for the user, and the dialog says so in its own words.
        QCOMPARE(sourceTable->currentText(), QString());
        const QString problems = dialog.problems().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QLatin1String("Choose a source table.")), qPrintable(problems));
        QVERIFY2(!problems.contains(QLatin1String("--")), qPrintable(problems));
        QVERIFY(!child<QLabel>(dialog, "problems")->text().contains(QLatin1String("--")));

        // A refusal from the final check is worded for the dialog too.
        chooseTable(sourceTable, QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        auto *target = child<QComboBox>(dialog, "targetConnection");
        target->setCurrentIndex(target->findData(QStringLiteral("dst")));
        child<QLineEdit>(dialog, "initialWatermark")->setText(QStringLiteral("not a time"));
        dialog.accept();
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QVERIFY(!dialog.problems().isEmpty());
        // The focus is on the field at fault, not on Cancel (where Enter threw the form away).
        QCOMPARE(dialog.focusWidget(), child<QLineEdit>(dialog, "initialWatermark"));
        QVERIFY2(!dialog.problems().first().contains(QLatin1String("--")),
                 qPrintable(dialog.problems().first()));
        QVERIFY2(dialog.problems().first().contains(QLatin1String("initial watermark")),
                 qPrintable(dialog.problems().first()));
    }

    void pointsToMenusThatExist() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("empty.tidemark"));
        Workspace::create(path);
        WorkspaceGateway gateway(path);
        TableDialog dialog(&gateway, std::nullopt);
        QLabel *status = child<QLabel>(dialog, "busy");
        QTRY_VERIFY(status->text().contains(QLatin1String("no connections")));
        QVERIFY2(status->text().contains(QStringLiteral("File › Connections…")), qPrintable(status->text()));

        // The menu it names is the one the window has.
        MainWindow window;
        QMenu *file = nullptr;
        for (QAction *action : window.menuBar()->actions()) {
            if (action->text().remove(QLatin1Char('&')) == QLatin1String("File"))
                file = action->menu();
        }
        QVERIFY(file);
        QVERIFY(file->actions().contains(window.findChild<QAction *>(QStringLiteral("actionConnections"))));
    }

    // Add Table picked the first connections by name and proposed dst → src, writing into the
    // source, with a table and a watermark nobody chose and OK enabled at once.
    void startsEmptyAndDecidesNothing() {
        UiFixture fixture;
        makeOrders(fixture.src, 3); // one table only: even then it is not chosen for the user
        addConnection(fixture, QStringLiteral("alias"), fixture.src);
        addConnection(fixture, QStringLiteral("broken"),
                      fixture.filePath(QStringLiteral("no/such/dir/t.db")));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        auto *source = child<QComboBox>(dialog, "sourceConnection");
        auto *target = child<QComboBox>(dialog, "targetConnection");
        auto *sourceTable = child<QComboBox>(dialog, "sourceTable");
        auto *watermark = child<QComboBox>(dialog, "watermark");
        QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QTRY_COMPARE(source->count(), 4);
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QCOMPARE(source->currentIndex(), -1);
        QCOMPARE(target->currentIndex(), -1);
        QCOMPARE(sourceTable->currentText(), QString());
        QVERIFY(!ok->isEnabled());

        // A source lists its tables and chooses none; the target stays unchosen.
        chooseSource(dialog, 1);
        if (QTest::currentTestFailed())
            return;
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QCOMPARE(sourceTable->currentText(), QString());
        QVERIFY(!dialog.columnsLoaded());
        QCOMPARE(watermark->currentData(Qt::UserRole + 1).toString(), QString());
        QCOMPARE(target->currentIndex(), -1);
        QVERIFY(!ok->isEnabled());

        // Once the user picks the table, the watermark is offered as a suggestion.
        chooseTable(sourceTable, QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        QCOMPARE(watermark->currentData(Qt::UserRole + 1).toString(), QStringLiteral("updated_at"));
        QVERIFY2(child<QLabel>(dialog, "watermarkReason")->text().startsWith(QStringLiteral("Suggested — ")),
                 qPrintable(child<QLabel>(dialog, "watermarkReason")->text()));
        QCOMPARE(target->currentIndex(), -1);
        QVERIFY(!ok->isEnabled());
    }

    // When every table goes one way, a new one starts the same way (and still chooses no table).
    void takesThePairTheTablesUse() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        makeOrders(fixture.src, 3, 1, QStringLiteral("returns"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        auto *source = child<QComboBox>(dialog, "sourceConnection");
        auto *target = child<QComboBox>(dialog, "targetConnection");
        QTRY_COMPARE(source->currentData().toString(), QStringLiteral("src"));
        QCOMPARE(target->currentData().toString(), QStringLiteral("dst"));
        QTRY_COMPARE(child<QComboBox>(dialog, "sourceTable")->count(), 2);
        QCOMPARE(child<QComboBox>(dialog, "sourceTable")->currentText(), QString());

        // Two directions in use: no guess.
        ConnectionSpec other =
            sqliteSpec(QStringLiteral("other"), fixture.filePath(QStringLiteral("other.db")));
        fixture.open()->addConnection(other);
        TableDraft reverse = UiFixture::draft(QStringLiteral("returns"), QStringLiteral("updated_at"));
        reverse.spec.targetConnection = QStringLiteral("other");
        fixture.addTable(reverse);
        TableDialog second(&gateway, std::nullopt);
        auto *secondSource = child<QComboBox>(second, "sourceConnection");
        QTRY_COMPARE(secondSource->count(), 3);
        QCOMPARE(secondSource->currentIndex(), -1);
        QCOMPARE(child<QComboBox>(second, "targetConnection")->currentIndex(), -1);
    }

    // A copy onto the source table itself is refused, and OK goes to the target table.
    void refusesTheSourceTableAsTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        chooseSource(dialog, 1);
        if (QTest::currentTestFailed())
            return;
        chooseTable(child<QComboBox>(dialog, "sourceTable"), QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        auto *target = child<QComboBox>(dialog, "targetConnection");
        target->setCurrentIndex(target->findData(QStringLiteral("src")));
        QCOMPARE(child<QLineEdit>(dialog, "targetTable")->text(), QStringLiteral("orders"));
        const QString problems = dialog.problems().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QLatin1String("is the source table itself")), qPrintable(problems));
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.focusWidget(), child<QLineEdit>(dialog, "targetTable"));

        // Another target table on the same connection is a copy, and allowed.
        child<QLineEdit>(dialog, "targetTable")->setText(QStringLiteral("orders_copy"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(QLatin1Char('\n'))));
    }

    // Stale after: out of range is named and keeps OK off, with the focus on the field; a valid
    // duration is kept in its shortest spelling.
    void staleAfterIsCheckedAndKept() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        chooseOrdersIntoDst(dialog);
        if (QTest::currentTestFailed())
            return;
        auto *staleAfter = child<QLineEdit>(dialog, "staleAfter");
        staleAfter->setText(QStringLiteral("30s"));
        const QString problems = dialog.problems().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QLatin1String("Stale after: '30s' is not from 1m to 3650d")),
                 qPrintable(problems));
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.focusWidget(), staleAfter);

        staleAfter->setText(QStringLiteral("360m"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(QLatin1Char('\n'))));
        QCOMPARE(dialog.draft().spec.staleAfter, QStringLiteral("6h"));
    }

    // Time zone: a zone that turns its clocks back is refused for an append table, with the focus
    // on the field, and kept for a merge one; UTC is no zone at all.
    void sourceZoneIsCheckedAndKept() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        chooseOrdersIntoDst(dialog);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(dialog.draft().spec.sourceTimezone.isEmpty());
        auto *zone = child<QComboBox>(dialog, "sourceZone");
        zone->lineEdit()->selectAll();
        QTest::keyClicks(zone->lineEdit(), QStringLiteral("Europe/Berlin")); // as a user types it
        const QString problems = dialog.problems().join(QLatin1Char('\n'));
        QVERIFY2(problems.contains(QLatin1String("turns its clocks back")), qPrintable(problems));
        dialog.accept();
        QVERIFY(dialog.isVisible());
        QVERIFY(dialog.focusWidget() == zone || dialog.focusWidget() == zone->lineEdit());

        auto *mode = child<QComboBox>(dialog, "mode");
        mode->setCurrentIndex(mode->findData(int(WriteMode::Merge)));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(QLatin1Char('\n'))));
        QCOMPARE(dialog.draft().spec.sourceTimezone, QStringLiteral("Europe/Berlin"));
        zone->setCurrentText(QStringLiteral("Mars/Olympus"));
        QVERIFY(dialog.problems().join(QLatin1Char('\n')).contains(QLatin1String("is no time zone")));
    }

    // Deletes: ignore by default; remove and mark:COLUMN are kept as the CLI takes them, and a
    // spelling it refuses is named with OK off.
    void deletesChoiceIsCheckedAndKept() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        chooseOrdersIntoDst(dialog);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(dialog.draft().spec.deletes.isIgnore());
        auto *deletes = child<QComboBox>(dialog, "deletes");
        deletes->setCurrentIndex(deletes->findText(QStringLiteral("remove")));
        QCOMPARE(dialog.draft().spec.deletes.action, DeletePolicy::Action::Remove);
        deletes->lineEdit()->selectAll();
        QTest::keyClicks(deletes->lineEdit(), QStringLiteral("mark:"));
        QVERIFY2(dialog.problems().join(QLatin1Char('\n')).contains(QLatin1String("Deletes: 'mark:'")),
                 qPrintable(dialog.problems().join(QLatin1Char('\n'))));
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        QTest::keyClicks(deletes->lineEdit(), QStringLiteral("gone_at"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join(QLatin1Char('\n'))));
        QCOMPARE(dialog.draft().spec.deletes.actionText(), QStringLiteral("mark:gone_at"));
    }

    // The final check refused the target (it belongs to another table): the focus goes to the
    // target table, with the input kept, never to Cancel.
    void focusGoesToTheFieldAtFaultAfterARefusedOk() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        makeOrders(fixture.src, 3, 1, QStringLiteral("returns"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QTRY_COMPARE(child<QComboBox>(dialog, "sourceTable")->count(), 2);
        chooseTable(child<QComboBox>(dialog, "sourceTable"), QStringLiteral("returns"));
        QTRY_VERIFY(dialog.columnsLoaded());
        auto *targetTable = child<QLineEdit>(dialog, "targetTable");
        targetTable->setText(QStringLiteral("orders"));
        QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QTRY_VERIFY(ok->isEnabled());
        ok->setFocus();
        ok->click();
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QTRY_VERIFY(!dialog.problems().isEmpty());
        QVERIFY2(dialog.problems().first().contains(QLatin1String("already the target")),
                 qPrintable(dialog.problems().first()));
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.focusWidget(), targetTable);
        QCOMPARE(targetTable->text(), QStringLiteral("orders"));
    }

    // An existing target that lacks a source column is refused at OK, with the words the run
    // would use, the input kept and the focus on the target table; a target that has every
    // column (and more) is taken.
    void checksAnExistingTargetsColumnsAtAdd() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        execSql(fixture.dst,
                QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TIMESTAMP)"));
        execSql(fixture.dst,
                QStringLiteral("CREATE TABLE wide (id INTEGER PRIMARY KEY, customer TEXT, amount REAL, "
                               "updated_at TIMESTAMP, note TEXT)"));
        TableDraft draft = UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
        try {
            fixture.prepared(draft);
            QFAIL("a target without the source's columns was accepted");
        } catch (const ValidationError &error) {
            // The run's own words: the first source column the target lacks.
            QCOMPARE(error.message(), missingTargetColumnMessage(draft.spec, QStringLiteral("customer")));
        }
        draft.spec.addNewColumns = true; // the run would add them: taken
        QCOMPARE(fixture.prepared(draft).targetTable, QStringLiteral("orders"));

        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        chooseSource(dialog, 1);
        if (QTest::currentTestFailed())
            return;
        chooseTable(child<QComboBox>(dialog, "sourceTable"), QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        auto *target = child<QComboBox>(dialog, "targetConnection");
        target->setCurrentIndex(target->findData(QStringLiteral("dst")));
        auto *targetTable = child<QLineEdit>(dialog, "targetTable");
        targetTable->setText(QStringLiteral("orders"));
        QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QTRY_VERIFY(ok->isEnabled());
        ok->click();
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QTRY_VERIFY(!dialog.problems().isEmpty());
        QVERIFY2(
            dialog.problems().first().contains(QLatin1String("does not exist in target table 'dst:orders'")),
            qPrintable(dialog.problems().first()));
        QVERIFY(dialog.isVisible());
        QCOMPARE(targetTable->text(), QStringLiteral("orders"));
    }

    void suggestsTheWatermarkWithItsReason() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        execSql(fixture.src, QStringLiteral("CREATE INDEX orders_updated ON orders (updated_at)"));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        chooseSource(dialog, 1);
        chooseTable(child<QComboBox>(dialog, "sourceTable"), QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        auto *watermark = child<QComboBox>(dialog, "watermark");
        QCOMPARE(watermark->currentData(Qt::UserRole + 1).toString(), QStringLiteral("updated_at"));
        QLabel *reason = child<QLabel>(dialog, "watermarkReason");
        QCOMPARE(reason->text(), QStringLiteral("Suggested — updated_at: indexed timestamp, never null"));

        // Another pick says what it offers, without "Suggested".
        for (int i = 0; i < watermark->count(); ++i) {
            if (watermark->itemData(i, Qt::UserRole + 1).toString() == QLatin1String("id"))
                watermark->setCurrentIndex(i);
        }
        QVERIFY2(reason->text().startsWith(QLatin1String("id: indexed integer, never null")),
                 qPrintable(reason->text()));
    }

    void layoutDoesNotJumpAsFieldsFillIn() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("a_table_with_a_rather_long_name_indeed"));
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        const auto okTop = [&] {
            return ok->mapTo(&dialog, QPoint()).y();
        };
        const QSize before = dialog.size();
        const int okBefore = okTop();
        auto *sourceTable = child<QComboBox>(dialog, "sourceTable");
        chooseSource(dialog, 2);
        if (QTest::currentTestFailed())
            return;
        chooseTable(sourceTable, QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        QTRY_VERIFY(!dialog.remoteWorkPending());
        QCoreApplication::processEvents();
        QVERIFY(!child<QLabel>(dialog, "watermarkReason")->text().isEmpty());
        QCOMPARE(dialog.size(), before);
        QCOMPARE(okTop(), okBefore);
    }

    void describesOffTheGuiThreadAndACancelInterruptsIt() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        execSql(fixture.src, kEndlessView);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        dialog.show();
        auto *sourceTable = child<QComboBox>(dialog, "sourceTable");
        chooseSource(dialog, 2);
        if (QTest::currentTestFailed())
            return;
        QTRY_VERIFY(!dialog.remoteWorkPending());

        // Typing a name part-way reads nothing; a committed choice does.
        QTest::keyClicks(sourceTable->lineEdit(), QStringLiteral("endl"));
        QVERIFY(!dialog.remoteWorkPending());
        QTest::keyClicks(sourceTable->lineEdit(), QStringLiteral("ess"));
        QTest::keyClick(sourceTable->lineEdit(), Qt::Key_Return);
        QVERIFY(dialog.remoteWorkPending());
        QTRY_VERIFY(
            child<QLabel>(dialog, "busy")->text().contains(QLatin1String("Reading the columns of endless")));

        // The describe never ends by itself; meanwhile the GUI thread serves events and the
        // workspace thread serves edits.
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(5);
        bool served = false;
        gateway.submit(
            this, [](Workspace &ws) { return ws.connections().size(); },
            [&served](qsizetype) { served = true; });
        QTRY_VERIFY(ticks >= 5 && served);
        QVERIFY(dialog.remoteWorkPending());
        QVERIFY(!dialog.columnsLoaded());

        // A newer choice supersedes it: the scan is interrupted and the new table's columns come.
        chooseTable(sourceTable, QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        QCOMPARE(child<QComboBox>(dialog, "watermark")->currentData(Qt::UserRole + 1).toString(),
                 QStringLiteral("updated_at"));
        QTRY_COMPARE(RemoteWorkQueue::pool().activeThreadCount(), 0);

        // Cancel interrupts a describe in progress too.
        chooseTable(sourceTable, QStringLiteral("endless"));
        QTRY_VERIFY(child<QLabel>(dialog, "busy")->text().contains(QLatin1String("endless")));
        dialog.reject();
        QVERIFY(!dialog.remoteWorkPending());
        QTRY_COMPARE(RemoteWorkQueue::pool().activeThreadCount(), 0);
    }

    void connectionTestIsCancellable() {
        UiFixture fixture;
        makeOrders(fixture.src, 1);
        // Another connection holds the file's write lock: reading its tables waits.
        SqliteDb locker(fixture.src, SqliteDb::Mode::ReadWrite);
        locker.exec(QStringLiteral("BEGIN EXCLUSIVE"));
        WorkspaceGateway gateway(fixture.wsPath);
        ConnectionsDialog dialog(&gateway);
        auto *list = child<QTableWidget>(dialog, "connections");
        QTRY_COMPARE(list->rowCount(), 2);
        list->selectRow(list->findItems(QStringLiteral("src"), Qt::MatchExactly).first()->row());
        QLabel *message = child<QLabel>(dialog, "message");
        QTest::mouseClick(child<QPushButton>(dialog, "testForm"), Qt::LeftButton);
        QVERIFY(message->text().startsWith(QLatin1String("Connecting")));
        QPushButton *cancel = child<QPushButton>(dialog, "cancelTest");
        QVERIFY(cancel->isEnabled());

        // Waiting on the lock, the workspace stays free for the dialog's other work.
        bool read = false;
        gateway.submit(
            this, [](Workspace &ws) { return ws.connections().size(); }, [&read](qsizetype) { read = true; });
        QTRY_VERIFY(read);
        QVERIFY(message->text().startsWith(QLatin1String("Connecting")));

        QTest::mouseClick(cancel, Qt::LeftButton);
        QCOMPARE(message->text(), QStringLiteral("Test cancelled."));
        QVERIFY(!cancel->isEnabled());
        // Opening the file waits for the lock before there is a statement to interrupt (like a
        // PostgreSQL connect): once the lock goes, the test ends and its answer is dropped.
        locker.exec(QStringLiteral("ROLLBACK"));
        QTRY_COMPARE(RemoteWorkQueue::pool().activeThreadCount(), 0);
        QCoreApplication::processEvents();
        QCOMPARE(message->text(), QStringLiteral("Test cancelled."));
    }

    void closingTheGatewayKeepsQueuedEdits() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        {
            WorkspaceGateway gateway(fixture.wsPath);
            // A slow read first, so the edits are still queued when the gateway goes.
            gateway.submitRead(
                nullptr, [](Workspace &ws) { return ws.runs(); }, [](const QList<RunRecord> &) {});
            gateway.reloadTables();
            gateway.submit(
                nullptr, [id](Workspace &ws) { ws.setActive(id, false); }, [] {});
            gateway.submit(
                nullptr,
                [id](Workspace &ws) {
                    TableSpec spec = *ws.table(id);
                    spec.maxSkipped = 42;
                    ws.updateTable(spec);
                },
                [] {});
            gateway.submit(
                nullptr,
                [id](Workspace &ws) {
                    TableSpec spec = *ws.table(id);
                    spec.batchSize = 777;
                    ws.updateTable(spec);
                },
                [] {});
        }
        const TableSpec stored = *fixture.open()->table(id);
        QCOMPARE(stored.active, false);
        QCOMPARE(stored.maxSkipped, qint64(42));
        QCOMPARE(stored.batchSize, 777);
    }

    // A read nobody will see the reply of (an aggregate over 100,000 runs may take seconds) does
    // not hold the window's quit up: it stops; the edit queued behind it is still written.
    void closingTheGatewayStopsTheReadInProgress() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        fillHistory(fixture.wsPath, 200, 1); // a read of every run: some thousand steps
        auto reading = std::make_shared<std::atomic_bool>(false);
        auto stopped = std::make_shared<std::atomic_bool>(false);
        {
            WorkspaceGateway gateway(fixture.wsPath);
            gateway.submitRead(
                nullptr,
                [reading, stopped](Workspace &ws) {
                    reading->store(true);
                    // Reads again and again until stopped (or, unstopped, for 20 s).
                    const QDeadlineTimer deadline(20000);
                    qsizetype runs = 0;
                    try {
                        while (!deadline.hasExpired())
                            runs = ws.runs().size();
                    } catch (...) {
                        stopped->store(true);
                        throw;
                    }
                    return runs;
                },
                [](qsizetype) {});
            gateway.submit(
                nullptr, [id](Workspace &ws) { ws.setActive(id, false); }, [] {});
            QTRY_VERIFY(reading->load());
        }
        QVERIFY(stopped->load());
        QCOMPARE(fixture.open()->table(id)->active, false);
    }
};

QTEST_MAIN(TestAddTable)
#include "tst_addtable.moc"
