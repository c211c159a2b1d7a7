// SPDX-License-Identifier: MIT
// The floor under the window's open stall (bench/first_frame.sh builds and runs it): a plain Qt
// main window the size Tidemark opens at (1400x880) with a menu bar, a tool bar, two tables and a
// status bar, and nothing else. It notes its GUI thread's lateness with the same 10 ms timer as
// Tidemark's WindowEventLog (late over 20 ms, and how much of it was spent waiting for a core) to
// the file named by its first argument, and quits after four seconds. With a second argument N it
// changes its status bar N ms after its first frame, as a window does whose content comes in
// after it is shown.
#include "bench/window/latenessprobe.h"

#include <QApplication>
#include <QDateTime>
#include <QEvent>
#include <QFile>
#include <QMainWindow>
#include <QMenuBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QWindow>

namespace {

QTableView *filledTable(int rows, int columns, QWidget *parent) {
    auto *model = new QStandardItemModel(rows, columns, parent);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < columns; ++c)
            model->setItem(r, c, new QStandardItem(QStringLiteral("row %1 column %2").arg(r).arg(c)));
    auto *view = new QTableView(parent);
    view->setModel(model);
    return view;
}

// Changes the status bar `delayMs` after the window's first expose.
class LateContent : public QObject {
public:
    LateContent(QMainWindow *window, int delayMs)
        : QObject(window)
        , m_window(window)
        , m_delayMs(delayMs) {}

    bool eventFilter(QObject *watched, QEvent *event) override {
        if (event->type() == QEvent::Expose && !m_armed) {
            m_armed = true;
            QTimer::singleShot(m_delayMs, m_window,
                               [this] { m_window->statusBar()->showMessage(QStringLiteral("Loaded")); });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QMainWindow *m_window;
    int m_delayMs;
    bool m_armed = false;
};

} // namespace

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QFile events(app.arguments().value(1));
    if (!events.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered))
        return 1;
    const auto note = [&events](const QString &what) {
        events.write(QStringLiteral("%1 %2\n")
                         .arg(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 0, 'f', 3)
                         .arg(what)
                         .toUtf8());
    };
    tidemark::startLatenessProbe(&app, note);

    QMainWindow window;
    window.setWindowTitle(QStringLiteral("bare window"));
    for (const char *menu : {"&File", "&Edit", "&View", "&Run", "&Help"})
        window.menuBar()->addMenu(QString::fromLatin1(menu))->addAction(QStringLiteral("Action"));
    QToolBar *tools = window.addToolBar(QStringLiteral("Tools"));
    for (int i = 0; i < 10; ++i)
        tools->addAction(QStringLiteral("Action %1").arg(i));
    auto *splitter = new QSplitter(Qt::Vertical, &window);
    splitter->addWidget(filledTable(30, 8, splitter));
    splitter->addWidget(filledTable(30, 10, splitter));
    window.setCentralWidget(splitter);
    window.statusBar()->showMessage(QStringLiteral("Ready"));
    window.resize(1400, 880);
    window.show();
    note(QStringLiteral("shown"));
    if (app.arguments().size() > 2)
        window.windowHandle()->installEventFilter(new LateContent(&window, app.arguments().at(2).toInt()));
    QTimer::singleShot(4000, &app, &QApplication::quit);
    return app.exec();
}
