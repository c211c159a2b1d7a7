// SPDX-License-Identifier: MIT
#pragma once

#include <QThreadPool>
#include <QVariant>

class QString;

namespace tidemark {

// Writes the window's settings on a thread of its own, one value after another in the order
// given. QSettings ends every write with a file sync: on the GUI thread, the one that records
// an opened workspace among the recent ones held the window for 400 ms while the disk was busy
// (a workspace just copied). What was given is on disk once the writer is gone.
class SettingsWriter {
public:
    SettingsWriter();
    ~SettingsWriter();
    SettingsWriter(const SettingsWriter &) = delete;
    SettingsWriter &operator=(const SettingsWriter &) = delete;

    void write(const QString &key, const QVariant &value);
    // Until every value given so far is on disk.
    void waitForDone();

private:
    QThreadPool m_thread;
};

} // namespace tidemark
