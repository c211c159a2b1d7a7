// SPDX-License-Identifier: MIT
#include "model/storage/storedb.h"

#include "model/common/error.h"

namespace tidemark {

int workspaceLockWaitMs() {
    constexpr int kLockWaitMs = 10000;
    bool ok = false;
    const int testMs = qEnvironmentVariableIntValue("TIDEMARK_TEST_WORKSPACE_BUSY_MS", &ok);
    return ok && testMs > 0 ? testMs : kLockWaitMs;
}

Statement &Statement::bind(int index, const QVariant &value) {
    if (value.isNull())
        return bind(index, nullptr);
    switch (value.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::Bool:
    case QMetaType::Short:
    case QMetaType::UShort:
        return bind(index, value.toLongLong());
    case QMetaType::ULongLong:
        return bind(index, qint64(value.toULongLong()));
    case QMetaType::Double:
    case QMetaType::Float:
        return bind(index, value.toDouble());
    case QMetaType::QByteArray:
        m_backend->bindBlob(index, value.toByteArray());
        return *this;
    default:
        return bind(index, value.toString());
    }
}

Transaction::Transaction(StoreDb &db, Kind kind)
    : m_db(db) {
    m_db.begin(kind);
}

Transaction::~Transaction() {
    if (!m_done) {
        try {
            m_db.exec(QStringLiteral("ROLLBACK"));
        } catch (const Error &) {
            // Rolled back already (SQLite after SQLITE_FULL, a server connection that was lost).
        }
    }
}

void Transaction::commit() {
    m_db.exec(QStringLiteral("COMMIT"));
    m_done = true;
}

} // namespace tidemark
