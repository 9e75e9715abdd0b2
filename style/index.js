import './base.css';
import './tool-cards.css';
import './workflow.css';
import './conversations.css';
import './settings-form.css';
import './branches.css';
import './rewind.css';
