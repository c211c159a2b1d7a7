// SPDX-License-Identifier: MIT
#include "model/common/englishplurals.h"

#include <QCoreApplication>

namespace tidemark {

QString EnglishPlurals::translate(const char *, const char *sourceText, const char *, int n) const {
    const QString source = QString::fromUtf8(sourceText);
    if (n < 0 || !source.contains(QLatin1String("(s)")))
        return {}; // no translation: Qt uses the source text
    QString text = source;
    text.replace(QLatin1String("(s)"), n == 1 ? QString() : QStringLiteral("s"));
    return text;
}

void installEnglishPlurals() {
    static EnglishPlurals *installed = nullptr;
    if (installed || !QCoreApplication::instance())
        return;
    installed = new EnglishPlurals(QCoreApplication::instance());
    QCoreApplication::installTranslator(installed);
}

} // namespace tidemark
