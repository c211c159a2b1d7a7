// SPDX-License-Identifier: MIT
// The window fits the screen it opens on: the first window opened at 1400×880 on a 1024×768
// screen, its right third and its status bar off-screen, and a geometry saved on a larger
// monitor came back as large.

#include "tests/ui/uifixture.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/windowfit.h"

#include <QScreen>
#include <QSettings>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

QRect available() {
    return QGuiApplication::primaryScreen()->availableGeometry();
}

} // namespace

class TestWindowFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }
    void init() { QSettings().clear(); }

    void fitToAvailable_data() {
        QTest::addColumn<QRect>("wanted");
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QMargins>("frame");
        QTest::addColumn<QRect>("expected");
        const QRect xga(0, 0, 1024, 768);
        QTest::newRow("fits already")
            << QRect(10, 20, 800, 600) << xga << QMargins() << QRect(10, 20, 800, 600);
        QTest::newRow("too large, shrunk in place")
            << QRect(0, 0, 1400, 880) << xga << QMargins() << QRect(0, 0, 1024, 768);
        QTest::newRow("frame kept on screen")
            << QRect(0, 0, 1400, 880) << xga << QMargins(4, 32, 4, 4) << QRect(4, 32, 1016, 732);
        QTest::newRow("saved on a monitor to the right")
            << QRect(2000, 100, 1800, 1000) << xga << QMargins() << QRect(0, 0, 1024, 768);
        QTest::newRow("hanging off the bottom right")
            << QRect(600, 500, 600, 400) << xga << QMargins() << QRect(424, 368, 600, 400);
        QTest::newRow("below a top panel")
            << QRect(0, 0, 800, 600) << QRect(0, 27, 1024, 741) << QMargins() << QRect(0, 27, 800, 600);
        QTest::newRow("no screen known")
            << QRect(0, 0, 1400, 880) << QRect() << QMargins() << QRect(0, 0, 1400, 880);
    }

    void fitToAvailable() {
        QFETCH(QRect, wanted);
        QFETCH(QRect, available);
        QFETCH(QMargins, frame);
        QFETCH(QRect, expected);
        QCOMPARE(tidemark::fitToAvailable(wanted, available, frame), expected);
    }

    void firstWindowIsCentredAndFits() {
        const QRect xga(0, 0, 1024, 768);
        const QRect geometry = firstWindowGeometry(QSize(1400, 880), xga);
        QCOMPARE(geometry, xga);
        const QRect small = firstWindowGeometry(QSize(800, 600), xga);
        QCOMPARE(small.size(), QSize(800, 600));
        QCOMPARE(small.center(), xga.center());
    }

    // Fresh settings: the window is no larger than the screen's available area, and on it.
    void freshWindowFitsTheScreen() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(available().contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("window %1,%2 %3×%4 on %5×%6")
                                .arg(window.frameGeometry().x())
                                .arg(window.frameGeometry().y())
                                .arg(window.width())
                                .arg(window.height())
                                .arg(available().width())
                                .arg(available().height())));
    }

    // A geometry saved on a larger monitor is clamped to this one.
    void restoredGeometryIsClamped() {
        {
            MainWindow large;
            large.setGeometry(1500, 900, 2400, 1500);
            QSettings().setValue(QStringLiteral("window/geometry"), large.saveGeometry());
        }
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(available().contains(window.frameGeometry()), qPrintable(QStringLiteral("window %1,%2 %3×%4")
                                                                              .arg(window.frameGeometry().x())
                                                                              .arg(window.frameGeometry().y())
                                                                              .arg(window.width())
                                                                              .arg(window.height())));
    }
};

QTEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
