#include "ui/metadata/MetadataValueEditor.h"
#include "ui/shell/WindowPlacement.h"

#include "core/edit/ValueText.h"
#include "core/gguf/Vocabulary.h"
#include "ui/metadata/SpecialTokenPicker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace {
enum EditorPage { LinePage, CheckPage, TextPage };

EditorPage pageFor(const QString& typeName)
{
    if (typeName == QLatin1String("bool"))
        return CheckPage;
    if (typeName == QLatin1String("str") || typeName.startsWith(QLatin1String("arr")))
        return TextPage;
    return LinePage;
}

// Text from the file is bytes; the editors hold Unicode. Invalid UTF-8 is not editable text.
std::string toBytes(const QString& text)
{
    return text.toUtf8().toStdString();
}
}  // namespace

MetadataValueEditor::MetadataValueEditor(Mode mode, std::shared_ptr<const gguf::Model> model, const QString& key, const QString& typeName,
                                         const QString& valueText, QWidget* parent)
    : QDialog(parent), m_mode(mode), m_key(new QLineEdit(key, this)), m_type(new QComboBox(this)), m_editors(new QStackedWidget(this)),
      m_line(new QLineEdit(this)), m_check(new QCheckBox(tr("true"), this)), m_text(new QPlainTextEdit(this)), m_problem(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(mode == Mode::AddKey ? tr("Add Metadata Key") : tr("Edit %1").arg(key));
    m_key->setObjectName(QStringLiteral("editorKey"));
    m_key->setReadOnly(mode == Mode::EditValue);
    m_type->setObjectName(QStringLiteral("editorType"));
    m_type->setEditable(true);  // arr[arr[u32]] and the like are typed
    m_type->addItems({"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bool", "str", "arr[u32]", "arr[i32]",
                      "arr[f32]", "arr[str]"});
    m_type->setCurrentText(typeName);
    m_type->setEnabled(mode == Mode::AddKey);
    m_line->setObjectName(QStringLiteral("editorLine"));
    m_check->setObjectName(QStringLiteral("editorCheck"));
    m_text->setObjectName(QStringLiteral("editorText"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_problem->setObjectName(QStringLiteral("editorProblem"));
    m_problem->setWordWrap(true);
    m_editors->addWidget(m_line);
    m_editors->addWidget(m_check);
    m_editors->addWidget(m_text);

    auto* form = new QFormLayout;
    if (mode == Mode::EditValue) {
        // The key is not up for editing: text, not a field that looks typeable.
        auto* keyText = new QLabel(this);
        keyText->setObjectName(QStringLiteral("editorKeyText"));
        keyText->setTextFormat(Qt::PlainText);
        keyText->setText(key);
        keyText->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_key->hide();
        form->addRow(tr("Key:"), keyText);
    } else {
        form->addRow(tr("Key:"), m_key);
    }
    form->addRow(tr("Type:"), m_type);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_editors, 1);
    if (model && key.startsWith(QLatin1String("tokenizer.ggml.")) && key.endsWith(QLatin1String("_token_id"))
        && gguf::Vocabulary::hasTokens(*model)) {
        m_picker = new SpecialTokenPicker(model, this);
        connect(m_picker, &SpecialTokenPicker::tokenPicked, this, [this](quint32 id) { m_line->setText(QString::number(id)); });
        layout->addWidget(m_picker, 2);
    }
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (canAccept())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_key, &QLineEdit::textChanged, this, &MetadataValueEditor::validate);
    connect(m_type, &QComboBox::currentTextChanged, this, [this] {
        showEditorForType();
        validate();
    });
    connect(m_line, &QLineEdit::textChanged, this, &MetadataValueEditor::validate);
    connect(m_check, &QCheckBox::toggled, this, &MetadataValueEditor::validate);
    connect(m_text, &QPlainTextEdit::textChanged, this, &MetadataValueEditor::validate);
    showEditorForType();
    setValueText(valueText);
    m_openedWith = this->valueText();
    resize(pageFor(typeName) == TextPage || m_picker ? QSize(760, 520) : QSize(480, 160));
    fitWindowIntoScreen(this);  // a small (or scaled) screen keeps the buttons on it
}

QString MetadataValueEditor::key() const { return m_key->text(); }
QString MetadataValueEditor::typeName() const { return m_type->currentText().trimmed(); }
void MetadataValueEditor::setKey(const QString& key) { m_key->setText(key); }
void MetadataValueEditor::setTypeName(const QString& typeName) { m_type->setCurrentText(typeName); }

QString MetadataValueEditor::valueText() const
{
    switch (pageFor(typeName())) {
    case CheckPage: return m_check->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    case TextPage: return m_text->toPlainText();
    case LinePage: break;
    }
    return m_line->text();
}

void MetadataValueEditor::setValueText(const QString& text)
{
    m_line->setText(text);
    m_check->setChecked(text == QLatin1String("true") || text == QLatin1String("1"));
    m_text->setPlainText(text);
    validate();
}

void MetadataValueEditor::showEditorForType()
{
    // Carry what was typed over to the editor of the new type.
    const QString text = m_editors->currentIndex() == TextPage ? m_text->toPlainText() : m_line->text();
    const EditorPage page = pageFor(typeName());
    if (page == TextPage && m_editors->currentIndex() != TextPage)
        m_text->setPlainText(text);
    else if (page == LinePage && m_editors->currentIndex() == TextPage)
        m_line->setText(text);
    m_editors->setCurrentIndex(page);
}

std::optional<gguf::EncodedValue> MetadataValueEditor::value() const
{
    auto parsed = gguf::parseValueText(toBytes(valueText()), toBytes(typeName()));
    if (!parsed)
        return std::nullopt;
    return std::move(parsed.value());
}

bool MetadataValueEditor::changed() const
{
    const auto now = value();
    const auto before = gguf::parseValueText(toBytes(m_openedWith), toBytes(typeName()));
    return !now || !before || now->type != before->type || now->payload != before->payload;
}

void MetadataValueEditor::setKeyTaken(std::function<bool(const QString& key)> taken)
{
    m_keyTaken = std::move(taken);
    validate();
}

QString MetadataValueEditor::problem() const
{
    return m_problem->text();
}

bool MetadataValueEditor::canAccept() const
{
    return m_buttons->button(QDialogButtonBox::Ok)->isEnabled();
}

void MetadataValueEditor::validate()
{
    QString problem;
    if (m_mode == Mode::AddKey && key().trimmed().isEmpty())
        problem = tr("Give the key a name.");
    else if (m_mode == Mode::AddKey && key().startsWith(QLatin1String("split.")))
        problem = tr("split.* keys describe the shard layout; Save As writes them.");
    else if (m_mode == Mode::AddKey && m_keyTaken && m_keyTaken(key().trimmed()))
        problem = tr("The model already has a key %1; edit it instead.").arg(key().trimmed());
    if (problem.isEmpty()) {
        const auto type = gguf::ValueTypeName::parse(toBytes(typeName()));
        if (!type) {
            problem = QString::fromStdString(type.error().message);
        } else {
            const auto parsed = gguf::parseValueText(toBytes(valueText()), toBytes(typeName()));
            if (!parsed)
                problem = QString::fromStdString(parsed.error().message);
        }
    }
    m_problem->setText(problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}
