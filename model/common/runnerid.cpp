// SPDX-License-Identifier: MIT
#include "model/common/runnerid.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace tidemark {

QString thisRunnerId() {
    return QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(QCoreApplication::applicationPid());
}

} // namespace tidemark
