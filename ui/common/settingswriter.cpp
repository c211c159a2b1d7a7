// SPDX-License-Identifier: MIT
#include "ui/common/settingswriter.h"

#include <QSettings>

namespace tidemark {

SettingsWriter::SettingsWriter() {
    // One thread: the values land in the order given (the same key set twice keeps the last).
    m_thread.setMaxThreadCount(1);
    m_thread.setObjectName(QStringLiteral("SettingsWriter"));
}

SettingsWriter::~SettingsWriter() {
    waitForDone();
}

void SettingsWriter::write(const QString &key, const QVariant &value) {
    m_thread.start([key, value] { QSettings().setValue(key, value); });
}

void SettingsWriter::waitForDone() {
    m_thread.waitForDone();
}

} // namespace tidemark
