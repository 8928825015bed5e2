#include "ModelPage.h"

#include "HumanFormat.h"
#include "MetadataTableModel.h"
#include "TensorBrowser.h"
#include "TensorViewPage.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QSettings>
#include <QVBoxLayout>

namespace {
const char* const kSplitterKey = "modelPage/tensorSplitter";
}

ModelPage::ModelPage(std::shared_ptr<const gguf::Model> model, QWidget* parent)
    : QWidget(parent), m_model(std::move(model)), m_pages(new QTabWidget(this)), m_metadata(new MetadataTableModel(this))
{
    m_metadata->setModel(m_model);
    m_pages->setObjectName(QStringLiteral("modelPages"));
    m_pages->addTab(createSummary(), tr("Overview"));
    auto* metadataView = new QTableView(m_pages);
    metadataView->setObjectName(QStringLiteral("metadataView"));
    metadataView->setModel(m_metadata);
    metadataView->verticalHeader()->hide();
    metadataView->horizontalHeader()->setStretchLastSection(true);
    metadataView->setWordWrap(false);
    m_pages->addTab(metadataView, tr("Metadata"));
    m_pages->addTab(createTensorsPage(), tr("Tensors"));
    m_pages->setCurrentIndex(m_pages->count() - 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
}

QWidget* ModelPage::createTensorsPage()
{
    m_browser = new TensorBrowser(m_model, this);
    m_tensorPage = new TensorViewPage(this);
    connect(m_browser, &TensorBrowser::tensorSelected, this, [this](int index) {
        m_tensorPage->setTensor(m_model, index >= 0 ? &m_model->tensors()[static_cast<std::size_t>(index)] : nullptr);
    });
    connect(m_tensorPage, &TensorViewPage::exportFinished, this, &ModelPage::statusMessage);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("tensorSplitter"));
    splitter->addWidget(m_browser);
    splitter->addWidget(m_tensorPage);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({420, 860});
    const QByteArray state = QSettings().value(kSplitterKey).toByteArray();
    if (!state.isEmpty())
        splitter->restoreState(state);
    connect(splitter, &QSplitter::splitterMoved, this, [splitter]() { QSettings().setValue(kSplitterKey, splitter->saveState()); });
    return splitter;
}

void ModelPage::showTensorsPage()
{
    m_pages->setCurrentIndex(m_pages->count() - 1);
}

QWidget* ModelPage::createSummary()
{
    const gguf::ModelSummary summary = m_model->summary();
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    auto text = [](const std::string& s) { return s.empty() ? tr("(not set)") : QString::fromStdString(s); };
    form->addRow(tr("Name:"), new QLabel(text(summary.name), box));
    form->addRow(tr("Architecture:"), new QLabel(text(summary.architecture), box));
    form->addRow(tr("Parameters:"), new QLabel(QStringLiteral("%1 (%2)").arg(QString::fromStdString(gguf::formatCount(summary.parameterCount)),
                                                                             QString::fromStdString(gguf::formatGrouped(summary.parameterCount))), box));
    form->addRow(tr("File size:"), new QLabel(tr("%1 in %n file(s)", nullptr, static_cast<int>(m_model->shards().size()))
                                                  .arg(QString::fromStdString(gguf::formatBytes(summary.fileSize))), box));
    form->addRow(tr("Bits per weight:"), new QLabel(QString::number(summary.averageBitsPerWeight, 'f', 3), box));
    const gguf::GgufFile& primary = m_model->primary();
    form->addRow(tr("Format:"), new QLabel(tr("GGUF v%1, %2-endian, alignment %3")
                                               .arg(primary.version())
                                               .arg(primary.bigEndian() ? tr("big") : tr("little"))
                                               .arg(primary.alignment()), box));
    return box;
}
