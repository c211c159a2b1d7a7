// SPDX-License-Identifier: MIT
// The Connections dialog (offscreen) against a real Secret Service (main() re-runs the suite in
// a private dbus-run-session with an unlocked gnome-keyring-daemon): a password typed with
// "Save in system keychain" ends up in the keychain and nowhere in the workspace; editing a
// connection changes it and its password; "Forget password" removes the entry.
#include "model/credentials/credentialstore.h"
#include "model/storage/workspace.h"
#include "tests/support/keychainsession.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"
#include "ui/common/workspacegateway.h"
#include "ui/connections/connectionsdialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Waits for the dialog's job to come back (message changed); a wait, not a timed assertion.
constexpr int kReplyWaitMs = 120000;

template <typename T> T *child(QWidget &dialog, const char *name) {
    T *widget = dialog.findChild<T *>(QString::fromLatin1(name));
    if (!widget)
        qFatal("the Connections dialog has no %s", name);
    return widget;
}

bool anyFileHolds(const QString &dir, const QByteArray &needle) {
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            return true;
    }
    return false;
}

} // namespace

class TestConnectionsDialog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_ws;

    ConnectionSpec stored(const QString &name) {
        const auto spec = Workspace::open(m_ws)->connection(name);
        return spec.value_or(ConnectionSpec{});
    }

    // Clicks `button` and waits until the message label shows a reply.
    static void clickAndWait(ConnectionsDialog &dialog, const char *button) {
        QLabel *message = child<QLabel>(dialog, "message");
        message->clear();
        QTest::mouseClick(child<QPushButton>(dialog, button), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!message->text().isEmpty(), kReplyWaitMs);
    }

    // The folder's files (a file workspace and its journal), and a server workspace's rows.
    bool workspaceHolds(const QByteArray &secret) const {
        return anyFileHolds(m_dir.path(), secret) ||
               (serverWorkspaces() && serverWorkspaceHolds(m_ws, QString::fromUtf8(secret)));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
        m_ws = testWorkspaceLocation(m_dir, QStringLiteral("ws.tidemark"));
        Workspace::create(m_ws);
    }

    void savesAddsEditsAndForgetsThePassword() {
        WorkspaceGateway gateway(m_ws);
        ConnectionsDialog dialog(&gateway);
        dialog.show();
        auto *password = child<QLineEdit>(dialog, "password");
        auto *save = child<QCheckBox>(dialog, "savePassword");
        QVERIFY(password->isEnabled()); // Test uses a typed password, kept or not
        QCOMPARE(password->echoMode(), QLineEdit::Password);

        child<QLineEdit>(dialog, "name")->setText(QStringLiteral("lake"));
        auto *kind = dialog.findChild<QComboBox *>();
        QVERIFY(kind);
        kind->setCurrentIndex(kind->findText(QStringLiteral("PostgreSQL")));
        child<QLineEdit>(dialog, "host")->setText(QStringLiteral("db.example"));
        child<QLineEdit>(dialog, "database")->setText(QStringLiteral("sales"));
        save->setChecked(true);
        QVERIFY(password->isEnabled());
        QTest::keyClicks(password, QStringLiteral("Dialog-Pw-8120"));
        clickAndWait(dialog, "addConnection");
        QLabel *message = child<QLabel>(dialog, "message");
        QVERIFY2(message->text().contains(QLatin1String("system keychain")), qPrintable(message->text()));

        ConnectionSpec lake = stored(QStringLiteral("lake"));
        QVERIFY(lake.id > 0);
        QCOMPARE(CredentialStore::readPassword(lake),
                 std::optional<QString>(QStringLiteral("Dialog-Pw-8120")));
        QVERIFY(password->text().isEmpty());

        // Edit: select it, the form fills in; change host and password, save.
        auto *list = child<QTableWidget>(dialog, "connections");
        QTRY_COMPARE_WITH_TIMEOUT(list->rowCount(), 1, kReplyWaitMs);
        list->selectRow(0);
        QCOMPARE(child<QLineEdit>(dialog, "host")->text(), QStringLiteral("db.example"));
        QCOMPARE(child<QLineEdit>(dialog, "database")->text(), QStringLiteral("sales"));
        child<QLineEdit>(dialog, "host")->setText(QStringLiteral("db2.example"));
        QTest::keyClicks(password, QStringLiteral("Dialog-Pw-9231"));
        clickAndWait(dialog, "saveChanges");
        QVERIFY2(message->text().startsWith(QLatin1String("Saved")), qPrintable(message->text()));
        lake = stored(QStringLiteral("lake"));
        QVERIFY2(lake.conninfo.contains(QLatin1String("host=db2.example")), qPrintable(lake.conninfo));
        QCOMPARE(CredentialStore::readPassword(lake),
                 std::optional<QString>(QStringLiteral("Dialog-Pw-9231")));

        gateway.waitForIdle();
        QVERIFY(!workspaceHolds("Dialog-Pw-8120"));
        QVERIFY(!workspaceHolds("Dialog-Pw-9231"));

        QTRY_COMPARE_WITH_TIMEOUT(list->rowCount(), 1, kReplyWaitMs);
        list->selectRow(0);
        clickAndWait(dialog, "forgetPassword");
        QVERIFY2(message->text().startsWith(QLatin1String("Removed")), qPrintable(message->text()));
        QCOMPARE(CredentialStore::readPassword(lake), std::nullopt);
    }

    void uncheckedStoresNothing() {
        WorkspaceGateway gateway(m_ws);
        ConnectionsDialog dialog(&gateway);
        child<QLineEdit>(dialog, "name")->setText(QStringLiteral("plain"));
        auto *kind = dialog.findChild<QComboBox *>();
        kind->setCurrentIndex(kind->findText(QStringLiteral("PostgreSQL")));
        child<QCheckBox>(dialog, "savePassword")->setChecked(true);
        child<QLineEdit>(dialog, "password")->setText(QStringLiteral("never-stored"));
        child<QCheckBox>(dialog, "savePassword")->setChecked(false);
        clickAndWait(dialog, "addConnection");
        const ConnectionSpec plain = stored(QStringLiteral("plain"));
        QVERIFY(plain.id > 0);
        QCOMPARE(CredentialStore::readPassword(plain), std::nullopt);
    }

    void missingSqliteFileIsSaidPlainly() {
        WorkspaceGateway gateway(m_ws);
        ConnectionsDialog dialog(&gateway);
        child<QLineEdit>(dialog, "name")->setText(QStringLiteral("later"));
        child<QLineEdit>(dialog, "sqlitePath")->setText(m_dir.filePath(QStringLiteral("not-yet.db")));
        clickAndWait(dialog, "addConnection");
        const QString text = child<QLabel>(dialog, "message")->text();
        QVERIFY2(text.contains(QLatin1String("does not exist")) && text.contains(QLatin1String("created")),
                 qPrintable(text));
    }

    // Test logs in with the password typed on the form, saved or not, and keeps it nowhere.
    void testUsesTheTypedPassword() {
        TIDEMARK_REQUIRE_POSTGRES();
        const QString role = QStringLiteral("dlg_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
        const QString password = QStringLiteral("Dlg-") + QUuid::createUuid().toString(QUuid::Id128);
        test::PgSession pg(
            QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=tidemark password=tidemark")
                .arg(test::pgPort()));
        // DDL takes no bound parameters: the role is a generated identifier, the password a
        // generated literal of letters, digits and '-'.
        pg.exec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(role, password));
        const auto cleanup =
            qScopeGuard([&] { pg.exec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(role)); });

        WorkspaceGateway gateway(m_ws);
        ConnectionsDialog dialog(&gateway);
        auto *kind = dialog.findChild<QComboBox *>();
        kind->setCurrentIndex(kind->findText(QStringLiteral("PostgreSQL")));
        child<QLineEdit>(dialog, "name")->setText(QStringLiteral("typed"));
        child<QLineEdit>(dialog, "host")->setText(QStringLiteral("127.0.0.1"));
        child<QSpinBox>(dialog, "port")->setValue(test::pgPort().toInt());
        child<QLineEdit>(dialog, "database")->setText(QStringLiteral("tidemark_pw"));
        child<QLineEdit>(dialog, "user")->setText(role);
        QVERIFY(!child<QCheckBox>(dialog, "savePassword")->isChecked());
        auto *typed = child<QLineEdit>(dialog, "password");
        QTest::keyClicks(typed, password);
        QLabel *message = child<QLabel>(dialog, "message");
        QTest::mouseClick(child<QPushButton>(dialog, "testForm"), Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(!message->text().startsWith(QLatin1String("Connecting")),
                                  qPrintable(message->text()), kReplyWaitMs);
        QVERIFY2(message->text().contains(QLatin1String("works")), qPrintable(message->text()));

        typed->setText(password + QStringLiteral("-wrong"));
        QTest::mouseClick(child<QPushButton>(dialog, "testForm"), Qt::LeftButton);
        QTRY_VERIFY2_WITH_TIMEOUT(!message->text().startsWith(QLatin1String("Connecting")),
                                  qPrintable(message->text()), kReplyWaitMs);
        QVERIFY2(message->text().contains(QLatin1String("password authentication failed")),
                 qPrintable(message->text()));
        gateway.waitForIdle();
        QVERIFY(!workspaceHolds(password.toUtf8()));
    }

    void testsTheFormBeforeAdding() {
        WorkspaceGateway gateway(m_ws);
        ConnectionsDialog dialog(&gateway);
        const qsizetype before = Workspace::open(m_ws)->connections().size();
        const QString existing = m_dir.filePath(QStringLiteral("shop.db"));
        test::execSql(existing, QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY)"));
        child<QLineEdit>(dialog, "name")->setText(QStringLiteral("shop"));
        child<QLineEdit>(dialog, "sqlitePath")->setText(existing);
        QLabel *message = child<QLabel>(dialog, "message");
        QTest::mouseClick(child<QPushButton>(dialog, "testForm"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(message->text().contains(QLatin1String("works")), kReplyWaitMs);
        QVERIFY2(message->text().contains(QLatin1String("1 table")), qPrintable(message->text()));

        const QString missing = m_dir.filePath(QStringLiteral("missing.db"));
        child<QLineEdit>(dialog, "sqlitePath")->setText(missing);
        clickAndWait(dialog, "testForm");
        QVERIFY2(message->text().contains(QLatin1String("does not exist")), qPrintable(message->text()));
        QVERIFY(!QFile::exists(missing)); // testing created nothing
        gateway.waitForIdle();
        QCOMPARE(Workspace::open(m_ws)->connections().size(), before);
    }

    // The keychain box is offered only where a keychain answers; elsewhere the form says where a
    // saved connection's password comes from instead.
    void keychainBoxOnlyWhereAKeychainAnswers() {
        WorkspaceGateway gateway(m_ws);
        {
            ConnectionsDialog dialog(&gateway);
            dialog.show();
            QTest::qWait(1000); // the keychain in this session answers: the box stays
            QVERIFY(!child<QCheckBox>(dialog, "savePassword")->isHidden());
        }
        qputenv("TIDEMARK_NO_KEYCHAIN", "1");
        ConnectionsDialog dialog(&gateway);
        dialog.show();
        auto *kind = dialog.findChild<QComboBox *>();
        kind->setCurrentIndex(kind->findText(QStringLiteral("PostgreSQL")));
        QTRY_VERIFY(child<QCheckBox>(dialog, "savePassword")->isHidden());
        const QString note = child<QLabel>(dialog, "passwordNote")->text();
        qunsetenv("TIDEMARK_NO_KEYCHAIN");
        QVERIFY2(note.contains(QStringLiteral("No system keychain here")) &&
                     note.contains(QStringLiteral("--password-env")) &&
                     note.contains(QStringLiteral("~/.pgpass")),
                 qPrintable(note));
        QVERIFY(child<QLineEdit>(dialog, "password")->isEnabled()); // Test still uses a typed one
    }
};

int main(int argc, char **argv) {
    if (const int code = tidemark::test::reRunInKeychainSession(argc, argv); code >= 0)
        return code;
    QApplication app(argc, argv);
    TestConnectionsDialog test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_connectionsdialog.moc"
