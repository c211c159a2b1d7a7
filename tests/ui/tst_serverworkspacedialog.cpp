// SPDX-License-Identifier: MIT
// File › Open Server Workspace…: a team's workspace on the throwaway PostgreSQL cluster
// (TIDEMARK_PG_PORT, scripts/pgcluster.sh), found by its parts, tested, then opened in the window.
#include "model/common/sqlquote.h"
#include "model/engine/tablesetup.h"
#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"
#include "model/storage/workspacepasswords.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "ui/connections/connectionsdialog.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/tabledialog.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/serverworkspacedialog.h"
#include "ui/mainwindow/workspacepassworddialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestServerWorkspaceDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        TIDEMARK_REQUIRE_POSTGRES();
        isolateSettings();
        QVERIFY(m_dir.isValid());
        m_schema = QStringLiteral("ui_dialog_%1").arg(QCoreApplication::applicationPid());
        PgSession().exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
        m_location =
            QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark?schema=%2").arg(pgPort(), m_schema);
        auto ws = Workspace::create(m_location);
        const QString src = m_dir.filePath(QStringLiteral("source.db"));
        makeOrders(src, 5);
        for (const QString &name : {QStringLiteral("src"), QStringLiteral("dst")}) {
            ConnectionSpec spec;
            spec.name = name;
            spec.path = name == QLatin1String("src") ? src : m_dir.filePath(QStringLiteral("target.db"));
            ws->addConnection(spec);
        }
        TableDraft draft;
        draft.spec.sourceConnection = QStringLiteral("src");
        draft.spec.sourceTable = QStringLiteral("orders");
        draft.spec.targetConnection = QStringLiteral("dst");
        draft.spec.targetTable = QStringLiteral("orders");
        draft.spec.watermarkColumn = QStringLiteral("updated_at");
        ws->addTable(prepareTable(*ws, draft));
    }

    void cleanupTestCase() {
        if (!m_schema.isEmpty() && !qEnvironmentVariableIsEmpty("TIDEMARK_PG_PORT"))
            PgSession().exec(
                QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
    }

    // The parts make the address shown; Test says what is there (or why nothing is); Open opens
    // it in the window, and the next time the dialog starts from it.
    void findTestAndOpen() {
        MainWindow window;
        window.resize(1024, 768);
        window.show();
        ServerWorkspaceDialog *dialog = openDialog(window);
        QVERIFY(dialog);
        auto *host = dialog->findChild<QLineEdit *>(QStringLiteral("serverHost"));
        auto *port = dialog->findChild<QSpinBox *>(QStringLiteral("serverPort"));
        auto *database = dialog->findChild<QLineEdit *>(QStringLiteral("serverDatabase"));
        auto *user = dialog->findChild<QLineEdit *>(QStringLiteral("serverUser"));
        auto *schema = dialog->findChild<QLineEdit *>(QStringLiteral("serverSchema"));
        auto *location = dialog->findChild<QLineEdit *>(QStringLiteral("serverLocation"));
        auto *test = dialog->findChild<QPushButton *>(QStringLiteral("serverTest"));
        auto *message = dialog->findChild<QLabel *>(QStringLiteral("serverMessage"));
        QPushButton *open = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Open);
        QVERIFY(host && port && database && user && schema && location && test && message && open);

        // A new user starts from the defaults, and is told what is missing.
        QCOMPARE(host->text(), QStringLiteral("localhost"));
        QCOMPARE(port->value(), 5432);
        QVERIFY(!open->isEnabled());
        QVERIFY(!test->isEnabled());
        QVERIFY2(message->text().contains(QLatin1String("database")), qPrintable(message->text()));

        host->setText(QStringLiteral("127.0.0.1"));
        port->setValue(pgPort().toInt());
        database->setText(QStringLiteral("tidemark"));
        user->setText(QStringLiteral("tidemark"));
        schema->setText(QStringLiteral("no_such_workspace"));
        QVERIFY(open->isEnabled());
        QTest::mouseClick(test, Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(message->text().contains(QLatin1String("does not exist")),
                                  qPrintable(message->text()), 20000);

        schema->setText(m_schema);
        QCOMPARE(WorkspaceLocation::resolve(location->text()).text(),
                 WorkspaceLocation::resolve(m_location).text());
        QTest::mouseClick(test, Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(message->text().endsWith(QLatin1String("opens: 1 table.")),
                                  qPrintable(message->text()), 20000);

        const QString opening = location->text();
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        QTest::mouseClick(open, Qt::LeftButton); // the dialog closes and is deleted
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20000);
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
        QCOMPARE(window.windowTitle(),
                 QStringLiteral("%1 in tidemark on 127.0.0.1:%2 — Tidemark").arg(m_schema, pgPort()));

        ServerWorkspaceDialog *again = openDialog(window);
        QVERIFY(again);
        QCOMPARE(again->findChild<QLineEdit *>(QStringLiteral("serverSchema"))->text(), m_schema);
        QCOMPARE(again->location(), opening);
        again->reject();
    }

    // A server that asks for a password nobody gave (no PGPASSWORD, no ~/.pgpass, no keychain):
    // the window asks for it; a wrong one is refused and asked again; the right one opens the
    // workspace, and the window's other connections (its watcher, its gateway) use it too.
    void asksForThePasswordTheServerWants() {
        qputenv("TIDEMARK_NO_KEYCHAIN", "1");
        qputenv("PGPASSFILE", "/nonexistent/pgpass");
        qunsetenv("PGPASSWORD");
        const QString schema = m_schema + QStringLiteral("_pw");
        const QString location =
            QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark_pw?schema=%2").arg(pgPort(), schema);
        const QString server = WorkspaceLocation::resolve(location).target();
        WorkspacePasswords::remember(server, "tidemark");
        Workspace::create(location);
        WorkspacePasswords::forget(server);
        const auto dropSchema = qScopeGuard([&] {
            PgSession(
                QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=tidemark password=tidemark")
                    .arg(pgPort()))
                .exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(schema)));
        });

        MainWindow window;
        window.resize(1024, 768);
        window.show();
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(location);
        WorkspacePasswordDialog *asked = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((asked = visiblePasswordDialog(window)) != nullptr, 20000);
        auto *question = asked->findChild<QLabel *>(QStringLiteral("passwordQuestion"));
        QVERIFY2(
            question->text().contains(QStringLiteral("password of user tidemark on the PostgreSQL server "
                                                     "127.0.0.1:%1 (database tidemark_pw, workspace %2)")
                                          .arg(pgPort(), schema)),
            qPrintable(question->text()));
        QVERIFY(!asked->findChild<QLabel *>(QStringLiteral("passwordRefused")));
        // No keychain here (TIDEMARK_NO_KEYCHAIN=1): nothing offers to remember it.
        auto *keep = asked->findChild<QCheckBox *>(QStringLiteral("keepInKeychain"));
        QVERIFY(!keep->isEnabled());
        QVERIFY2(keep->toolTip().contains(QStringLiteral("TIDEMARK_NO_KEYCHAIN")),
                 qPrintable(keep->toolTip()));
        asked->findChild<QLineEdit *>(QStringLiteral("workspacePassword"))->setText(QStringLiteral("wrong"));
        asked->accept();

        QTRY_VERIFY_WITH_TIMEOUT((asked = visiblePasswordDialog(window)) != nullptr, 20000);
        QVERIFY(asked->findChild<QLabel *>(QStringLiteral("passwordRefused")));
        QCOMPARE(opened.size(), 0);
        asked->findChild<QLineEdit *>(QStringLiteral("workspacePassword"))
            ->setText(QStringLiteral("tidemark"));
        asked->accept();
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20000);
        QCOMPARE(window.windowTitle(),
                 QStringLiteral("%1 in tidemark_pw on 127.0.0.1:%2 — Tidemark").arg(schema, pgPort()));
        WorkspacePasswords::forget(server);
    }

    // Roles (docs/team.md): what the login may not do is greyed out, its tooltip saying why, and
    // a double-click does not slip past it; what it may do is not.
    void greysOutWhatTheRoleCannotDo() {
        const QString suffix = QString::number(QCoreApplication::applicationPid());
        const QString viewer = QStringLiteral("ui_viewer_") + suffix;
        const QString operatorLogin = QStringLiteral("ui_operator_") + suffix;
        PgSession admin;
        for (const QString &login : {viewer, operatorLogin})
            admin.exec(QStringLiteral("CREATE ROLE %1 LOGIN").arg(quoteIdentifier(login)));
        const auto dropLogins = qScopeGuard([&] {
            PgSession().exec(
                QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
            for (const QString &role :
                 {viewer, operatorLogin, m_schema + QStringLiteral("_viewer"),
                  m_schema + QStringLiteral("_operator"), m_schema + QStringLiteral("_analyst"),
                  m_schema + QStringLiteral("_admin")})
                PgSession().exec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(quoteIdentifier(role)));
        });
        {
            auto ws = Workspace::open(m_location);
            ws->grantRole(viewer, WorkspaceRole::Viewer);
            ws->grantRole(operatorLogin, WorkspaceRole::Operator);
        }
        const auto openAs = [&](MainWindow &window, const QString &login) {
            window.resize(1024, 768);
            window.show();
            QSignalSpy opened(&window, &MainWindow::workspaceOpened);
            window.openWorkspace(QStringLiteral("postgresql://%1@127.0.0.1:%2/tidemark?schema=%3")
                                     .arg(login, pgPort(), m_schema));
            QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 20000);
            QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
            window.controlTable()->view()->selectRow(0);
        };
        const auto action = [](MainWindow &window, const char *name) {
            return window.findChild<QAction *>(QString::fromLatin1(name));
        };

        MainWindow asViewer;
        openAs(asViewer, viewer);
        QVERIFY(!action(asViewer, "actionRunAll")->isEnabled());
        QCOMPARE(action(asViewer, "actionRunAll")->toolTip(),
                 QStringLiteral("%1 is a viewer: running needs operator").arg(viewer));
        QVERIFY(!action(asViewer, "actionPause")->isEnabled());
        QVERIFY(!action(asViewer, "actionAddTable")->isEnabled());
        QVERIFY(!action(asViewer, "actionAddSchedule")->isEnabled());
        QCOMPARE(action(asViewer, "actionAddSchedule")->toolTip(),
                 QStringLiteral("%1 is a viewer: adding a schedule needs analyst").arg(viewer));
        QVERIFY(action(asViewer, "actionWatermarkHistory")->isEnabled()); // reading is a viewer's
        QVERIFY(action(asViewer, "actionVerify")->isEnabled());
        auto *path = asViewer.findChild<QLabel *>(QStringLiteral("workspacePath"));
        QVERIFY2(path->text().endsWith(QStringLiteral(" — as %1, a viewer").arg(viewer)),
                 qPrintable(path->text()));

        MainWindow asOperator;
        openAs(asOperator, operatorLogin);
        QVERIFY(action(asOperator, "actionRunAll")->isEnabled());
        QCOMPARE(action(asOperator, "actionRunAll")->toolTip(),
                 QStringLiteral("Copy every active table (F5)"));
        QVERIFY(action(asOperator, "actionPause")->isEnabled());
        QVERIFY(!action(asOperator, "actionEditTable")->isEnabled());
        QCOMPARE(action(asOperator, "actionEditTable")->toolTip(),
                 QStringLiteral("%1 is an operator: editing a table needs analyst").arg(operatorLogin));
        QSignalSpy said(asOperator.controlTable(), &ControlTablePanel::statusMessage);
        asOperator.controlTable()->editSelected(); // a double-click's way in
        QCOMPARE(said.size(), 1);
        QCOMPARE(said.first().first().toString(),
                 QStringLiteral("%1 is an operator: editing a table needs analyst").arg(operatorLogin));
        QVERIFY(asOperator.findChildren<TableDialog *>().isEmpty());
        // The connections: listed and tested by everyone, changed by an analyst.
        action(asOperator, "actionConnections")->trigger();
        auto *connections = asOperator.findChild<ConnectionsDialog *>();
        QVERIFY(connections);
        for (const QString &button : {QStringLiteral("addConnection"), QStringLiteral("removeConnection")}) {
            auto *pushButton = connections->findChild<QPushButton *>(button);
            QVERIFY(!pushButton->isEnabled());
            QCOMPARE(
                pushButton->toolTip(),
                QStringLiteral("%1 is an operator: changing a connection needs analyst").arg(operatorLogin));
        }
        QVERIFY(connections->findChild<QPushButton *>(QStringLiteral("testForm"))->isEnabled());
        connections->close();

        // Made an analyst while the window is open: a refresh shows it.
        Workspace::open(m_location)->grantRole(operatorLogin, WorkspaceRole::Analyst);
        action(asOperator, "actionRefresh")->trigger();
        QTRY_VERIFY(action(asOperator, "actionEditTable")->isEnabled());
        QVERIFY(!action(asOperator, "actionEditTable")->toolTip().contains(QStringLiteral("needs")));
        auto *operatorPath = asOperator.findChild<QLabel *>(QStringLiteral("workspacePath"));
        QVERIFY2(operatorPath->text().endsWith(QStringLiteral(" — as %1, an analyst").arg(operatorLogin)),
                 qPrintable(operatorPath->text()));
    }

private:
    WorkspacePasswordDialog *visiblePasswordDialog(MainWindow &window) {
        for (WorkspacePasswordDialog *dialog : window.findChildren<WorkspacePasswordDialog *>())
            if (dialog->isVisible())
                return dialog;
        return nullptr;
    }

    ServerWorkspaceDialog *openDialog(MainWindow &window) {
        auto *action = window.findChild<QAction *>(QStringLiteral("actionOpenServerWorkspace"));
        if (!action)
            return nullptr;
        action->trigger();
        const QList<ServerWorkspaceDialog *> dialogs = window.findChildren<ServerWorkspaceDialog *>();
        for (ServerWorkspaceDialog *dialog : dialogs)
            if (dialog->isVisible())
                return dialog;
        return nullptr;
    }

    QTemporaryDir m_dir;
    QString m_schema;
    QString m_location;
};

QTEST_MAIN(TestServerWorkspaceDialog)
#include "tst_serverworkspacedialog.moc"
