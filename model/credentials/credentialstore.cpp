// SPDX-License-Identifier: MIT
#include "model/credentials/credentialstore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/storage/workspacepasswords.h"

#include <qt6keychain/keychain.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QThread>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>

namespace tidemark {
namespace {

// Longer than libsecret's own D-Bus timeout (25 s), so its error is what the user sees.
constexpr std::chrono::seconds kAnswerTimeout{40};

struct JobOutcome {
    QKeychain::Error error = QKeychain::NoError;
    QString errorString;
    QString text; // read jobs: the password
};

// The thread every QtKeychain job runs on. QtKeychain queues jobs in a process-wide executor
// that is not thread-safe and answers through the event loop of the thread it was created in;
// one thread with its own event loop (and, with Qt's GLib dispatcher, its own GLib main context
// for libsecret's callbacks) keeps that executor on one thread for the life of the process.
class KeychainThread {
public:
    static QObject *context() {
        std::lock_guard lock(s_mutex);
        if (!s_instance) {
            if (!QCoreApplication::instance())
                return nullptr;
            s_instance = new KeychainThread;
            qAddPostRoutine(&KeychainThread::stop);
        }
        return s_instance->m_context;
    }

private:
    KeychainThread()
        : m_context(new QObject) {
        m_thread.setObjectName(QStringLiteral("keychain"));
        m_context->moveToThread(&m_thread);
        m_thread.start();
    }
    ~KeychainThread() {
        m_thread.quit();
        m_thread.wait();
        delete m_context;
    }
    static void stop() {
        std::lock_guard lock(s_mutex);
        delete s_instance;
        s_instance = nullptr;
    }

    QThread m_thread;
    QObject *m_context;
    static inline std::mutex s_mutex;
    static inline KeychainThread *s_instance = nullptr;
};

// One keychain entry: how messages name it ("connection 'erp'", "workspace server …") and its key.
struct Entry {
    QString name;
    QString key;
};

Entry connectionEntry(const ConnectionSpec &spec, const QString &action) {
    if (spec.keychainKey.isEmpty())
        throw Error(QStringLiteral("connection '%1': %2: the connection is not saved in a workspace yet")
                        .arg(spec.name, action));
    return {QStringLiteral("connection '%1'").arg(spec.name), spec.keychainKey};
}

Entry workspaceEntry(const QString &target) {
    return {QStringLiteral("workspace server %1").arg(target), workspaceKeychainKey(target)};
}

JobOutcome runJob(const Entry &entry, const QString &action, std::function<QKeychain::Job *()> makeJob) {
    QObject *context = KeychainThread::context();
    if (!context)
        throw Error(
            QStringLiteral("%1: %2: the keychain needs a running application").arg(entry.name, action));
    auto promise = std::make_shared<std::promise<JobOutcome>>();
    std::future<JobOutcome> answer = promise->get_future();
    QMetaObject::invokeMethod(
        context,
        [makeJob = std::move(makeJob), promise] {
            QKeychain::Job *job = makeJob();
            job->setAutoDelete(false);
            job->setInsecureFallback(false);
            QObject::connect(job, &QKeychain::Job::finished, job, [promise](QKeychain::Job *finished) {
                JobOutcome outcome{finished->error(), finished->errorString(), QString()};
                if (const auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(finished))
                    outcome.text = read->textData();
                promise->set_value(std::move(outcome));
                finished->deleteLater();
            });
            job->start();
        },
        Qt::QueuedConnection);
    if (answer.wait_for(kAnswerTimeout) != std::future_status::ready)
        throw Error(QStringLiteral("%1: %2: the system keychain did not answer within %3 s")
                        .arg(entry.name, action)
                        .arg(kAnswerTimeout.count()));
    return answer.get();
}

[[noreturn]] void throwKeychainError(const Entry &entry, const QString &action, const JobOutcome &outcome) {
    throw Error(QStringLiteral("%1: %2: the system keychain failed: %3 "
                               "(is a Secret Service such as gnome-keyring or KWallet running and unlocked?)")
                    .arg(entry.name, action, outcome.errorString));
}

const QString kReading = QStringLiteral("reading its password");
const QString kStoring = QStringLiteral("storing its password");
const QString kForgetting = QStringLiteral("forgetting its password");

std::optional<QString> readEntry(const Entry &entry) {
    const JobOutcome outcome = runJob(entry, kReading, [key = entry.key] {
        auto *job = new QKeychain::ReadPasswordJob(QString::fromLatin1(CredentialStore::serviceName));
        job->setKey(key);
        return job;
    });
    if (outcome.error == QKeychain::EntryNotFound)
        return std::nullopt;
    if (outcome.error != QKeychain::NoError)
        throwKeychainError(entry, kReading, outcome);
    return outcome.text;
}

void saveEntry(const Entry &entry, const QString &password) {
    if (password.isEmpty())
        throw ValidationError(QStringLiteral("%1: an empty password is not stored").arg(entry.name));
    const JobOutcome outcome = runJob(entry, kStoring, [key = entry.key, password] {
        auto *job = new QKeychain::WritePasswordJob(QString::fromLatin1(CredentialStore::serviceName));
        job->setKey(key);
        job->setTextData(password);
        return job;
    });
    if (outcome.error != QKeychain::NoError)
        throwKeychainError(entry, kStoring, outcome);
}

bool forgetEntry(const Entry &entry) {
    // libsecret deletes a missing entry without complaint: read first to tell the two apart.
    if (!readEntry(entry))
        return false;
    const JobOutcome outcome = runJob(entry, kForgetting, [key = entry.key] {
        auto *job = new QKeychain::DeletePasswordJob(QString::fromLatin1(CredentialStore::serviceName));
        job->setKey(key);
        return job;
    });
    if (outcome.error == QKeychain::EntryNotFound)
        return false;
    if (outcome.error != QKeychain::NoError)
        throwKeychainError(entry, kForgetting, outcome);
    return true;
}

} // namespace

QString workspaceKeychainKey(const QString &target) {
    return QStringLiteral("workspace/") + target;
}

std::optional<QString> CredentialStore::readPassword(const ConnectionSpec &spec) {
    return readEntry(connectionEntry(spec, kReading));
}

void CredentialStore::savePassword(const ConnectionSpec &spec, const QString &password) {
    saveEntry(connectionEntry(spec, kStoring), password);
}

bool CredentialStore::forgetPassword(const ConnectionSpec &spec) {
    return forgetEntry(connectionEntry(spec, kForgetting));
}

std::optional<QString> CredentialStore::readWorkspacePassword(const QString &target) {
    return readEntry(workspaceEntry(target));
}

void CredentialStore::saveWorkspacePassword(const QString &target, const QString &password) {
    saveEntry(workspaceEntry(target), password);
}

bool CredentialStore::forgetWorkspacePassword(const QString &target) {
    return forgetEntry(workspaceEntry(target));
}

QString CredentialStore::unavailableReason() {
    if (qgetenv("TIDEMARK_NO_KEYCHAIN") == "1")
        return QStringLiteral("TIDEMARK_NO_KEYCHAIN=1 is set");
    // Without a session bus libsecret would try to start one (dbus-launch) only to find no
    // Secret Service on it: an SSH session, a service, a container.
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS") &&
        !QFileInfo::exists(qEnvironmentVariable("XDG_RUNTIME_DIR") + QStringLiteral("/bus")))
        return QStringLiteral("there is no D-Bus session bus, so no Secret Service");
    const Entry probe{QStringLiteral("(keychain probe)"), QStringLiteral("tidemark-keychain-probe")};
    try {
        const JobOutcome outcome = runJob(probe, QStringLiteral("probing"), [key = probe.key] {
            auto *job = new QKeychain::ReadPasswordJob(QString::fromLatin1(serviceName));
            job->setKey(key);
            return job;
        });
        if (outcome.error == QKeychain::NoError || outcome.error == QKeychain::EntryNotFound)
            return QString();
        return outcome.errorString;
    } catch (const Error &error) {
        return error.message();
    }
}

QByteArray resolvePostgresPassword(const ConnectionSpec &spec, QString *keychainProblem) {
    if (!spec.typedPassword.isEmpty())
        return spec.typedPassword.toUtf8();
    if (!spec.passwordEnv.isEmpty()) {
        const QByteArray password = qgetenv(spec.passwordEnv.toLocal8Bit().constData());
        if (password.isEmpty())
            throw Error(QStringLiteral("connection '%1': environment variable %2 (--password-env) is not set")
                            .arg(spec.name, spec.passwordEnv));
        return password;
    }
    if (spec.keychainKey.isEmpty() || qgetenv("TIDEMARK_NO_KEYCHAIN") == "1")
        return {};
    try {
        if (const std::optional<QString> password = CredentialStore::readPassword(spec))
            return password->toUtf8();
    } catch (const Error &error) {
        // No keychain here (a server, a cron job): ~/.pgpass and service files still work.
        logger("core.credentials")->debug("{}; trying ~/.pgpass", str(error.message()));
        if (keychainProblem)
            *keychainProblem = error.message();
    }
    return {};
}

bool rememberWorkspacePasswordFromKeychain(const QString &target) {
    if (qgetenv("TIDEMARK_NO_KEYCHAIN") == "1")
        return false;
    try {
        const std::optional<QString> password = CredentialStore::readWorkspacePassword(target);
        if (!password)
            return false;
        WorkspacePasswords::remember(target, password->toUtf8());
        return true;
    } catch (const Error &error) {
        logger("core.credentials")->debug("{}", str(error.message()));
        return false;
    }
}

} // namespace tidemark
